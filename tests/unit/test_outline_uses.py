"""What the head file's outline (gather/outline.py) gives besides the heuristic's definitions: the model's
hunk headers name the method a change is in, grounding keeps a reference to it, and its link opens the
method at the head and the diff at the change inside it."""

from __future__ import annotations

from test_outline import HEAD, PATCH

from readworthy.analyze.ground import ground_digest
from readworthy.gather.outline import python_outline
from readworthy.locate import locate
from readworthy.models import Decision, Digest, FileChange, PRContext, Verdict
from readworthy.pack.classify import Classifier
from readworthy.pack.diff import pack_diff
from readworthy.pack.hunks import with_enclosing_headers
from readworthy.pack.rank import rank_files
from readworthy.pack.tokens import estimating_counter

PATH = "vllm/model.py"
METHOD = f"{PATH}::DecoderLayer.forward"


def _change(with_outline: bool) -> FileChange:
    change = FileChange(path=PATH, additions=1, deletions=1, patch=PATCH)
    return change.model_copy(update={"outline": python_outline(HEAD)}) if with_outline else change


def test_a_hunk_header_names_the_method_its_change_is_in_when_the_hunk_does_not_show_its_def() -> None:
    headed = with_enclosing_headers(PATCH, python_outline(HEAD))
    assert headed.split("\n")[0] == "@@ -12,6 +12,6 @@ class DecoderLayer(nn.Module): [in DecoderLayer.forward]"
    assert headed.split("\n")[1:] == PATCH.split("\n")[1:]
    assert with_enclosing_headers(PATCH, None) == PATCH
    # a hunk that shows the method's own `def` line says nothing more: the model reads it there
    shows_def = ("@@ -11,3 +11,3 @@ class DecoderLayer(nn.Module):\n     def forward(self, hidden, residual):\n"
                 "-        hidden = self.norm(hidden)\n+        hidden = self.norm(hidden, eps)\n")
    assert with_enclosing_headers(shows_def, python_outline(HEAD)) == shows_def


def test_the_packed_diff_the_model_reads_carries_the_method_name() -> None:
    for with_outline in (False, True):
        packed = pack_diff(rank_files([_change(with_outline)], Classifier()), 2_000, estimating_counter()).text
        assert ("[in DecoderLayer.forward]" in packed) is with_outline


def _digest() -> Digest:
    return Digest(verdict=Verdict.SKIM, reason="r", headline="h", start_reading=[METHOD],
                  decisions=[Decision(title="The scale is learned", explanation="", references=[METHOD])])


def test_grounding_keeps_a_method_the_outline_knows_and_drops_it_without() -> None:
    for with_outline in (False, True):
        ctx = PRContext(number=1, title="t", files=[_change(with_outline)])
        grounded, _ = ground_digest(_digest(), ctx)
        assert (METHOD in grounded.start_reading) is with_outline


def test_a_method_placed_by_the_outline_spans_its_definition_and_opens_the_diff_at_its_change() -> None:
    ctx = PRContext(number=1, title="t", files=[_change(True)])
    loc = next(x for x in locate(_digest(), ctx) if x.ref == METHOD)
    assert (loc.start, loc.end, loc.changed, loc.diff_line) == (11, 16, 15, 15)  # `def forward` .. `return`
    # without the outline: only the first changed line the hunk shows, as before
    plain = next(x for x in locate(_digest(), PRContext(number=1, title="t", files=[_change(False)]))
                 if x.ref == METHOD)
    assert (plain.start, plain.changed, plain.diff_line) == (15, 0, 15)
