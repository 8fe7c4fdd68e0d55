"""gather: a pull request, a git range or a patch file -> PRContext.

The only GitHub reader. `github_api` (the client, GraphQL and the one error mapping) and `rest`
(REST reads) are two of the three modules that import PyGithub; `publish` is the third.
No prompts, no Markdown here.
"""
