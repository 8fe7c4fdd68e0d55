"""Fit the heuristic's reading-value model (analyze/heuristic/verdict_model.py) on labelled PRs.

    .venv/bin/python bench/fit_verdicts.py [--fixtures DIR ...] [--l2 1.0] [--write]

An ordinal logistic (proportional-odds) model over the general features of verdict_model.features:
z = w · standardised(x); P(skip) = σ(c1 − z), P(deep-read) = 1 − σ(c2 − z). Fitted by Newton's method
on the negative log-likelihood with an L2 penalty towards the rubric's signs (verdict_model.RUBRIC_PRIOR;
the penalty keeps 60-odd labels from being memorised), each rubric fact's weight kept on the rubric's
side of zero, in pure Python. Only the PRs the model decides are fitted: the ones a certain shape rule settles
(analyzer.py: empty, lock/generated only, versions only, ...) never reach it.

--write stores the fitted constants in src/readworthy/analyze/heuristic/verdict_weights.py.
bench/verdicts.py calls `fit` on training folds to measure agreement on held-out PRs.
"""

from __future__ import annotations

import argparse
import math
import random
from collections.abc import Mapping, Sequence
from pathlib import Path

from readworthy.analyze.heuristic.verdict_model import RUBRIC_PRIOR, Params, ordinal_probabilities, sigmoid, standardised

ORDER = ("skip", "skim", "deep-read")
# The penalty is chosen from this grid by cross-validated log-likelihood on the training PRs alone
# (inner folds), so a held-out fold never helps choose it.
L2_GRID = (0.3, 1.0, 3.0, 10.0, 30.0)
INNER_FOLDS = 5
INNER_SEED = 7
L2 = 1.0  # the default for `fit` alone
WEIGHTS_FILE = Path(__file__).resolve().parents[1] / "src" / "readworthy" / "analyze" / "heuristic" / "verdict_weights.py"


Fitted = Params


def _standardise(rows: Sequence[Mapping[str, float]]) -> tuple[dict[str, float], dict[str, float]]:
    names = sorted(rows[0])
    means = {k: sum(r[k] for r in rows) / len(rows) for k in names}
    scales = {}
    for k in names:
        var = sum((r[k] - means[k]) ** 2 for r in rows) / len(rows)
        scales[k] = math.sqrt(var) if var > 1e-12 else 1.0
    return means, scales


def _sample_terms(z: float, c1: float, c2: float, y: int) -> tuple[float, list[float], list[list[float]]]:
    """One PR's negative log-likelihood, its gradient and Hessian in (z, c1, c2)."""
    if y == 0:  # -log σ(c1 - z)
        p = sigmoid(c1 - z)
        d, dd = -(1.0 - p), p * (1.0 - p)  # in u = c1 - z
        return -math.log(max(p, 1e-300)), [-d, d, 0.0], [[dd, -dd, 0.0], [-dd, dd, 0.0], [0.0, 0.0, 0.0]]
    if y == 2:  # -log σ(z - c2)
        p = sigmoid(z - c2)
        d, dd = -(1.0 - p), p * (1.0 - p)  # in v = z - c2
        return -math.log(max(p, 1e-300)), [d, 0.0, -d], [[dd, 0.0, -dd], [0.0, 0.0, 0.0], [-dd, 0.0, dd]]
    # -log(σ(a) - σ(b)), a = c2 - z, b = c1 - z
    big, small = sigmoid(c2 - z), sigmoid(c1 - z)
    p = max(big - small, 1e-12)
    da, db = big * (1.0 - big), small * (1.0 - small)
    dda, ddb = da * (1.0 - 2.0 * big), db * (1.0 - 2.0 * small)
    fa, fb = -da / p, db / p
    faa, fbb, fab = -dda / p + da * da / (p * p), ddb / p + db * db / (p * p), -da * db / (p * p)
    ja, jb = (-1.0, 0.0, 1.0), (-1.0, 1.0, 0.0)
    grad = [fa * ja[i] + fb * jb[i] for i in range(3)]
    hess = [[faa * ja[i] * ja[j] + fbb * jb[i] * jb[j] + fab * (ja[i] * jb[j] + jb[i] * ja[j]) for j in range(3)]
            for i in range(3)]
    return -math.log(p), grad, hess


def _terms(theta: list[float], xs: list[list[float]], ys: list[int], l2: float, prior: list[float]
           ) -> tuple[float, list[float], list[list[float]]]:
    """The penalised loss, its gradient and Hessian in theta = (weights..., c1, c2); the penalty pulls
    each weight towards its rubric prior."""
    k = len(theta) - 2
    w, c1, c2 = theta[:k], theta[k], theta[k + 1]
    if c2 <= c1:
        return math.inf, [], []
    n = k + 2
    loss = 0.5 * l2 * sum((v - m) ** 2 for v, m in zip(w, prior))
    grad = [l2 * (v - m) for v, m in zip(w, prior)] + [0.0, 0.0]
    hess = [[(l2 if i == j and i < k else 0.0) for j in range(n)] for i in range(n)]
    for x, y in zip(xs, ys):
        f, g, h = _sample_terms(sum(a * b for a, b in zip(w, x)), c1, c2, y)
        loss += f
        for i in range(k):
            grad[i] += g[0] * x[i]
            row = hess[i]
            hzz = h[0][0] * x[i]
            for j in range(k):
                row[j] += hzz * x[j]
            row[k] += h[0][1] * x[i]
            row[k + 1] += h[0][2] * x[i]
            hess[k][i] += h[1][0] * x[i]
            hess[k + 1][i] += h[2][0] * x[i]
        grad[k] += g[1]
        grad[k + 1] += g[2]
        hess[k][k] += h[1][1]
        hess[k][k + 1] += h[1][2]
        hess[k + 1][k] += h[2][1]
        hess[k + 1][k + 1] += h[2][2]
    return loss, grad, hess


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the system is small: features + 2)."""
    n = len(vector)
    a = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        if abs(a[col][col]) < 1e-12:
            a[col][col] = 1e-12
        for r in range(col + 1, n):
            f = a[r][col] / a[col][col]
            if f:
                for c in range(col, n + 1):
                    a[r][c] -= f * a[col][c]
    out = [0.0] * n
    for r in range(n - 1, -1, -1):
        out[r] = (a[r][n] - sum(a[r][c] * out[c] for c in range(r + 1, n))) / a[r][r]
    return out


def _fit_free(xs: list[list[float]], ys: list[int], l2: float, prior: list[float]) -> list[float]:
    """The penalised maximum-likelihood theta = (weights..., c1, c2), by damped Newton steps."""
    theta = prior[:] + [-1.0, 1.0]
    loss, grad, hess = _terms(theta, xs, ys, l2, prior)
    for _ in range(100):
        step = _solve(hess, grad)
        t = 1.0
        while True:  # damped Newton: halve the step until the loss does not rise
            candidate = [a - t * b for a, b in zip(theta, step)]
            new_loss, new_grad, new_hess = _terms(candidate, xs, ys, l2, prior)
            if new_loss <= loss or t < 1e-6:
                break
            t /= 2
        improved = loss - new_loss
        if new_loss <= loss:
            theta, loss, grad, hess = candidate, new_loss, new_grad, new_hess
        if improved < 1e-10:
            break
    return theta


def fit(rows: Sequence[Mapping[str, float]], labels: Sequence[str], l2: float = L2) -> Fitted:
    """The penalised maximum-likelihood weights and cuts for these rows (features) and labels, each
    weight of a fact the rubric gives a direction kept on that side of zero: a weight the fit would
    flip is pinned at zero and the rest refitted (an active set, one feature at a time)."""
    means, scales = _standardise(rows)
    names = sorted(rows[0])
    unit = Params({}, (0.0, 0.0), means, scales)
    ys = [ORDER.index(v) for v in labels]
    standard = [standardised(r, unit) for r in rows]
    free = list(names)
    while True:
        xs = [[x[k] for k in free] for x in standard]
        prior = [RUBRIC_PRIOR.get(k, 0.0) for k in free]
        theta = _fit_free(xs, ys, l2, prior)
        crossed = [(theta[i] * RUBRIC_PRIOR[k], k) for i, k in enumerate(free)
                   if RUBRIC_PRIOR.get(k, 0.0) and theta[i] * RUBRIC_PRIOR[k] < 0]
        if not crossed:
            break
        free.remove(min(crossed)[1])
    k = len(free)
    weights = {n: 0.0 for n in names} | {n: theta[i] for i, n in enumerate(free)}
    return Fitted(weights, (theta[k], theta[k + 1]), means, scales)


def _log_likelihood(model: Fitted, row: Mapping[str, float], label: str) -> float:
    _, _, probs = predict(model, row)
    return math.log(max(probs[label], 1e-12))


def choose_l2(rows: Sequence[Mapping[str, float]], labels: Sequence[str], grid: Sequence[float] = L2_GRID,
              k: int = INNER_FOLDS, seed: int = INNER_SEED) -> float:
    """The penalty with the best cross-validated log-likelihood over these rows (seeded folds)."""
    order = list(range(len(rows)))
    random.Random(seed).shuffle(order)
    parts = [order[i::k] for i in range(k)]
    best, best_ll = grid[0], -math.inf
    for l2 in grid:
        ll = 0.0
        for part in parts:
            held = set(part)
            model = fit([rows[i] for i in order if i not in held], [labels[i] for i in order if i not in held], l2)
            ll += sum(_log_likelihood(model, rows[i], labels[i]) for i in part)
        if ll > best_ll:
            best, best_ll = l2, ll
    return best


def fit_selected(rows: Sequence[Mapping[str, float]], labels: Sequence[str]) -> tuple[Fitted, float]:
    """The fit with the penalty chosen by inner cross-validation on these rows only."""
    l2 = choose_l2(rows, labels)
    return fit(rows, labels, l2), l2


def predict(model: Fitted, row: Mapping[str, float]) -> tuple[str, float, dict[str, float]]:
    """(verdict, z, probabilities) for one row of features."""
    x = standardised(row, model)
    z = sum(model.weights[k] * x[k] for k in model.weights)
    probs = {v.value: p for v, p in ordinal_probabilities(z, model.cuts).items()}
    return max(probs, key=lambda v: probs[v]), z, probs


def write(model: Fitted, path: Path = WEIGHTS_FILE, note: str = "") -> None:
    def table(values: Mapping[str, float]) -> str:
        return "{\n" + "".join(f"    {k!r}: {v:.4f},\n" for k, v in sorted(values.items())) + "}"

    path.write_text(
        '"""Fitted constants of the reading-value model (verdict_model.py). Written by bench/fit_verdicts.py --write:\n'
        f"{note}\nDo not edit by hand; refit instead.\n\"\"\"\n\n"
        f"MEANS: dict[str, float] = {table(model.means)}\n"
        f"SCALES: dict[str, float] = {table(model.scales)}\n"
        f"WEIGHTS: dict[str, float] = {table(model.weights)}\n"
        f"CUTS: tuple[float, float] = ({model.cuts[0]:.4f}, {model.cuts[1]:.4f})\n",
        encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    import verdicts as vd

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--fixtures", type=Path, action="append", default=[])
    parser.add_argument("--l2", type=float, default=None, help="a fixed penalty (default: chosen by inner CV)")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    import verdict_cv as cv

    roots = args.fixtures or vd.DEFAULT_FIXTURES
    labels = vd.load_all_labels(roots)
    cases = [c for c in cv.load_cases(roots, labels) if c.features is not None]
    rows = [c.features for c in cases if c.features]
    if args.l2 is None:
        model, l2 = fit_selected(rows, [c.label for c in cases])
    else:
        model, l2 = fit(rows, [c.label for c in cases], args.l2), args.l2
    print(f"fitted on {len(cases)} PRs (L2 {l2}); cuts {model.cuts[0]:.3f} {model.cuts[1]:.3f}")
    for name, w in sorted(model.weights.items(), key=lambda kv: -abs(kv[1])):
        print(f"  {name:20} {w:+.3f}")
    if args.write:
        write(model, note=f"fitted on the {len(cases)} labelled PRs the model decides (L2 {l2}, chosen by "
                          f"{INNER_FOLDS}-fold cross-validation, seed {INNER_SEED}).")
        print(f"wrote {WEIGHTS_FILE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
