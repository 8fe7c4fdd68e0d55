"""The team's reading taste: verdicts maintainers corrected with `/readworthy verdict`, kept in one
issue of the repository (the taste memory), and used to inform later analyses.

    profile.py   PR files -> ChangeProfile (the directories and kinds of file it changes)
    record.py    Correction <-> the comment that holds it (a fenced JSON block), and what makes one unusable
    similar.py   how alike two changes are; the few nearest past corrections; the heuristic's evidence rule

Pure: reading the memory is gather/memory.py (one GraphQL request per run), writing it publish.py.
"""
