"""Malformed specs: each error names the right file:line:col, says what is wrong, and hints.

Positions are 1-based and point inside the YAML file -- for an expression, at
the offending character. Expected positions are worked out by hand from the
spec texts below (the column of a character inside an expression is the
column where the expression's text starts plus its offset).
"""

from __future__ import annotations

import pytest

from sleuth.compiler import SpecError, load_game
from sleuth.compiler.game import load_game_text, parse_overrides
from sleuth.solver.interfaces.cli import main

BASE = """\
game: T
params: {n: 3}
domains:
  D: {range: "1..n"}
  Kind: {enum: [heavy, light]}
secret:
  code: {seq: D, len: n}
  kind: Kind
queries:
  guess:
    args: {g: {seq: D, len: n}}
    feedback: "count(g[i] == code[i] for i in 0..n-1)"
"""
FEEDBACK_COL = 16  # column of the first character of line 12's expression
GOOD = "count(g[i] == code[i] for i in 0..n-1)"


def with_feedback(expr: str) -> str:
    return BASE.replace(GOOD, expr)


def error_of(text: str) -> SpecError:
    with pytest.raises(SpecError) as err:
        game = load_game_text(text, "bad.yaml")
        game.hypotheses  # noqa: B018
    assert err.value.loc is None or err.value.loc.file == "bad.yaml"
    return err.value


def test_base_spec_is_valid():
    assert load_game_text(BASE, "ok.yaml").hypotheses.size == 27 * 2


CASES = [
    # (id, spec text, line, col, message, hint)
    ("unknown name", with_feedback("count(g[i] == cod[i] for i in 0..n-1)"),
     12, FEEDBACK_COL + 14, "unknown name 'cod'", "did you mean 'code'?"),
    ("type mismatch int vs enum", with_feedback("code[0] == heavy"),
     12, FEEDBACK_COL, "type mismatch: '==' compares int 1..3 with Kind", None),
    ("bool in arithmetic", with_feedback("true + 1"),
     12, FEEDBACK_COL, "needs numbers, and 'true' is true/false", "int(...) or count(...)"),
    ("empty range", BASE.replace('"1..n"', '"3..1"'),
     4, 15, "empty range 3..1", "inclusive and ascending"),
    ("range bound not an integer", BASE.replace('"1..n"', '"1..2.5"'),
     4, 18, "range bounds must be integers, not float", None),
    ("range domain given a number", BASE.replace('"1..n"', "n"),
     4, 14, "must be a range like \"1..n\"", 'write "lo..hi"'),
    ("missing secret", BASE.replace("secret:\n  code: {seq: D, len: n}\n  kind: Kind\n", ""),
     1, 1, "missing key 'secret'", "add a top-level 'secret:'"),
    ("missing game", BASE.replace("game: T\n", ""),
     1, 1, "missing key 'game'", None),
    ("unknown top-level key", BASE.replace("queries:", "quries:"),
     9, 1, "unknown key 'quries' in the spec", "did you mean 'queries'?"),
    ("unknown query key", BASE.replace("    args:", "    leagl: 'true'\n    args:"),
     11, 5, "unknown key 'leagl' in query 'guess'", "did you mean 'legal'?"),
    ("YAML boolean trap", BASE.replace("[heavy, light]", "[heavy, no]"),
     5, 24, "YAML reads 'no' as a boolean", 'quote this value: "no"'),
    ("duplicate key", BASE.replace("params: {n: 3}\n", "params: {n: 3}\ngame: U\n"),
     3, 1, "duplicate key 'game'", "first given at line 1"),
    ("unbalanced parenthesis", with_feedback("count(g[i] == code[i] for i in 0..n-1"),
     12, FEEDBACK_COL + len(GOOD) - 2, "unexpected end of expression",
     "'(' at line 12, column 21 is never closed"),
    ("stray closing bracket", with_feedback("count(g[i]] == 1 for i in 0..n-1)"),
     12, FEEDBACK_COL + 10, "unexpected ']'", "']' at line 12, column 26 has no opening"),
    ("chained comparison", with_feedback("1 < n < 3"),
     12, FEEDBACK_COL + 6, "unexpected '<'", "comparisons do not chain"),
    ("builtin arity", with_feedback("abs(1, 2)"),
     12, FEEDBACK_COL, "abs() takes 1 argument, given 2", None),
    ("count without generator", with_feedback("count(g)"),
     12, FEEDBACK_COL, "count() needs a 'for' clause or two arguments", "count(xs, value)"),
    ("def arity", BASE.replace(GOOD, "sq(1, 2)") + 'defs:\n  "sq(x)": "x * x"\n',
     12, FEEDBACK_COL, "'sq' takes 1 argument, given 2", "sq(x)"),
    ("direct recursion", BASE.replace(GOOD, "f(1)") + 'defs:\n  f(x): "f(x) + 1"\n',
     14, 10, "recursion in defs: f -> f", "cannot call themselves"),
    ("mutual recursion",
     BASE.replace(GOOD, "a(1)") + 'defs:\n  a(x): "b(x)"\n  b(x): "2 * a(x)"\n',
     15, 14, "recursion in defs: a -> b -> a", None),
    ("continuous argument domain", BASE.replace("{g: {seq: D, len: n}}", "{g: Real}"),
     11, 15, "argument 'g' needs a finite domain, not Real", "Real is only for"),
    ("set over too many elements",
     BASE.replace("{g: {seq: D, len: n}}", "{g: {set: Big}}")
     .replace("  D: {range", '  Big: {range: "1..100"}\n  D: {range'),
     12, 21, "sets over 100 elements are not supported", None),
    ("unknown domain", BASE.replace("kind: Kind", "kind: Kin"),
     8, 9, "unknown domain 'Kin'", "did you mean 'Kind'?"),
    ("unknown function", with_feedback("cnt(g, 1)"),
     12, FEEDBACK_COL, "unknown function 'cnt'", "did you mean 'count'?"),
    ("legal depends on the secret",
     BASE.replace("    feedback:", "    legal: 'g[0] != code[0]'\n    feedback:"),
     12, 13, "the legality of query 'guess' depends on the secret", "only use the arguments"),
    ("unknown record field",
     BASE.replace("kind: Kind", "kind: {record: {pos: D}}").replace(GOOD, "kind.pso"),
     12, FEEDBACK_COL, "no field 'pso'", "did you mean 'pos'?"),
    ("ambiguous enum label",
     BASE.replace("  Kind: {enum", "  Weight: {enum: [heavy, medium]}\n  Kind: {enum")
     .replace('"count(g[i] == code[i] for i in 0..n-1)"', '"kind == heavy"'),
     13, FEEDBACK_COL + 8, "'heavy' is a label of several enums", "'Kind.heavy'"),
    ("float feedback", with_feedback("1 / 2"),
     12, FEEDBACK_COL, "must have finitely many values", None),
    ("string that is not a label", with_feedback("kind == 'hevy'"),
     12, FEEDBACK_COL + 8, "'hevy' is not a label of Kind", "did you mean 'heavy'?"),
    ("name unknown on second line of a block scalar",
     BASE.replace(f'"{GOOD}"',
                  "|-\n      count(g[i] == code[i]\n            for i in 0..n-1 if zz)"),
     14, 32, "unknown name 'zz'", None),
    ("goal names no secret variable", BASE + "goal: {identify: [cod]}\n",
     13, 19, "goal identifies 'cod', which is not a secret variable", "did you mean 'code'?"),
    ("stop_when of wrong type", BASE + 'goal: {stop_when: "feedback + 1"}\n',
     13, 20, "stop_when must be true or false", None),
    ("seq without len", BASE.replace("{seq: D, len: n}}", "{seq: D}}"),
     11, 15, "a seq domain needs 'len'", "{seq: Colour, len: pegs}"),
    ("index out of range", with_feedback("g[3]"),
     12, FEEDBACK_COL + 2, "index 3 is out of range 0..2", "indexed from 0"),
    ("iterate a number", with_feedback("count(true for i in n)"),
     12, FEEDBACK_COL + 20, "cannot iterate over int 3..3", "iterate a range a..b"),
    ("generator too large to unroll",
     with_feedback("count(true for i in 0..1000 for j in 0..1000)"),
     12, FEEDBACK_COL + len("count(true for i in 0..1000 for j in "),
     "runs over 1,002,001 combinations", "smaller range"),
    ("sequence too long", BASE.replace("code: {seq: D, len: n}", "code: {seq: D, len: 2000}"),
     7, 23, "len must be in 1..1024, not 2000", None),
    ("feedback and response both missing", BASE.replace(f'    feedback: "{GOOD}"\n', ""),
     10, 3, "query 'guess' needs exactly one of 'feedback' or 'response'", None),
    ("feedback with no components", with_feedback("X").replace('"X"', "{}"),
     12, FEEDBACK_COL - 1, "feedback has no components", "named components"),
]


@pytest.mark.parametrize("text, line, col, message, hint", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_malformed_spec(text, line, col, message, hint):
    err = error_of(text)
    assert message in err.message
    assert (err.loc.line, err.loc.col) == (line, col)
    if hint is not None:
        assert err.hint is not None and hint in err.hint


def test_set_of_unknown_param_suggests_the_nearest(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text(BASE)
    with pytest.raises(SpecError) as err:
        load_game(path, parse_overrides(["nn=4"]))
    assert err.value.message == "no parameter 'nn' to set"
    assert err.value.hint == "did you mean 'n'?"
    assert err.value.loc is None


def test_set_of_wrong_type_points_at_the_param(tmp_path):
    path = tmp_path / "ok.yaml"
    path.write_text(BASE)
    with pytest.raises(SpecError) as err:
        load_game(path, parse_overrides(["n=three"]))
    assert "expected int" in err.value.message
    assert (err.value.loc.line, err.value.loc.col) == (2, 13)


@pytest.mark.parametrize("item", ["n", "=3", "n=[1, 2]"])
def test_malformed_set_option(item):
    with pytest.raises(SpecError, match="--set"):
        parse_overrides([item])


def test_cli_reports_error_location_and_exits_1(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text(with_feedback("count(g[i] == cod[i] for i in 0..n-1)"))
    with pytest.raises(SystemExit) as exit_:
        main(["check", str(path)])
    assert exit_.value.code == 1
    err = capsys.readouterr().err
    assert f"{path}:12:30: unknown name 'cod'" in err
    assert "did you mean 'code'?" in err
    assert "Traceback" not in err


def test_cli_missing_file_exits_1(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["info", str(tmp_path / "nope.yaml"), "--json"])
    assert exit_.value.code == 1
    assert "no such spec file" in capsys.readouterr().err


def test_cli_invalid_yaml_exits_1(tmp_path, capsys):
    path = tmp_path / "bad.yaml"
    path.write_text("game: T\nsecret: [unclosed\n")
    with pytest.raises(SystemExit) as exit_:
        main(["check", str(path)])
    assert exit_.value.code == 1
    err = capsys.readouterr().err
    assert "invalid YAML" in err and f"{path}:3:1" in err


@pytest.mark.parametrize("title, message, hint", [
    ('"{nn} pegs"', "title names '{nn}', which is not a param", "did you mean 'n'?"),
    ('"{n pegs"', "title: ", "name a param in braces"),
])
def test_a_title_names_params_only(tmp_path, title, message, hint):
    path = tmp_path / "titled.yaml"
    path.write_text(BASE.replace("game: T\n", f"game: T\ntitle: {title}\n"))
    with pytest.raises(SpecError) as err:
        load_game(path)
    assert message in err.value.message and hint in (err.value.hint or "")
    assert (err.value.loc.line, err.value.loc.col) == (2, 8)


def test_a_title_reads_the_params_as_set(tmp_path):
    from sleuth.solver.interfaces.summary import heading

    path = tmp_path / "titled.yaml"
    path.write_text(BASE.replace("game: T\n", 'game: T\ntitle: "{n} by {n}"\n'))
    assert heading(load_game(path, {"n": 4})) == "T, 4 by 4"
    assert heading(load_game(tmp_path / "titled.yaml")) == "T, 3 by 3"


@pytest.mark.parametrize("layout, message", [
    ("{grid: {rows: n, cols: n, query: nope, cell: g}}", "'nope', which is not a query"),
    ("{grid: {rows: n, cols: n, query: guess, cell: x}}", "reads the cell from 'x'"),
    ("{grid: {rows: m, cols: n, query: guess, cell: g}}", "size 'm' is not a positive int"),
    ("{grid: {rows: 2, cols: 2, query: guess}}", "layout's grid needs 'cell'"),
    ("{board: {}}", "unknown key 'board'"),
    ("{pegs: {query: guess, code: x}}", "draws 'x', which must be a sequence argument"),
    ("{pegs: {query: guess, code: g, keys: {nope: black}}}", "key 'nope' must be a count"),
    ("{pegs: {query: guess, code: g, colours: [red, 'url(x)', blue]}}", "is not a colour"),
    ("{tiles: {query: guess, word: g, marks: feedback}}", "must be a feedback of 3 labels"),
    ("{tiles: {query: guess}}", "layout's tiles needs 'word'"),
    ("{grid: {rows: 1, cols: 3, query: guess, cell: g}, pegs: {query: guess, code: g}}",
     "a layout names one kind"),
    ("{box: {rows: 1, cols: 1, query: guess, port: g}}", "fires into 'g', which must be"),
])
def test_a_layout_is_checked_where_it_is_written(tmp_path, layout, message):
    path = tmp_path / "laid.yaml"
    path.write_text(BASE.replace("game: T\n", f"game: T\nlayout: {layout}\n"))
    with pytest.raises(SpecError) as err:
        load_game(path)
    assert message in err.value.message and err.value.loc.line == 2


MARKED = """\
game: M
layout: {tiles: {query: guess, word: g, marks: marks, colours: COLOURS}}
domains: {D: {range: "1..3"}, Mark: {enum: [miss, hit]}}
secret: {code: {seq: D, len: 2}}
queries:
  guess:
    args: {g: {seq: D, len: 2}}
    feedback:
      marks: >-
        [if g[0] == code[0] then Mark.hit else Mark.miss,
        if g[1] == code[1] then Mark.hit else Mark.miss]
"""


def test_tiles_give_each_mark_its_colour(tmp_path):
    path = tmp_path / "marked.yaml"
    path.write_text(MARKED.replace("COLOURS", "{miss: grey, hit: '#6aaa64'}"))
    layout = load_game(path).model.layout
    assert (layout.kind, layout.code, layout.marks, layout.length) == ("tiles", "g", "marks", 2)
    assert layout.colours == {"miss": "grey", "hit": "#6aaa64"}
    path.write_text(MARKED.replace("COLOURS", "{miss: grey}"))
    with pytest.raises(SpecError, match="give each mark of Mark its colour"):
        load_game(path)
    path.write_text(MARKED.replace("COLOURS", "{miss: grey, hit: green, near: red}"))
    with pytest.raises(SpecError, match="give each mark of Mark its colour"):
        load_game(path)


def test_a_grid_must_hold_every_cell(tmp_path):
    text = ("game: G\nlayout: {grid: {rows: 2, cols: 2, query: ask, cell: c}}\n"
            "domains: {C: {range: '0..4'}}\nsecret: {x: C}\n"
            "queries:\n  ask:\n    args: {c: C}\n    feedback: 'x == c'\n")
    (tmp_path / "g.yaml").write_text(text)
    with pytest.raises(SpecError, match="must number the cells 0..3"):
        load_game(tmp_path / "g.yaml")


def test_pegs_outnumbering_their_colours_get_more(tmp_path):
    """A param raised past the palette never breaks the spec: the values beyond the
    colours given get colours of their own, all different."""
    path = tmp_path / "pegs.yaml"
    path.write_text(BASE.replace("game: T\n", "game: T\nlayout: {pegs: {query: guess, code: g, "
                                 "colours: [red, blue]}}\n"))
    layout = load_game(path, {"n": 12}).model.layout
    assert list(layout.colours) == [str(v) for v in range(1, 13)]
    assert layout.colours["1"] == "red" and layout.colours["2"] == "blue"
    assert len(set(layout.colours.values())) == 12
    assert len(set(load_game("mastermind", {"colours": 20}).model.layout.colours.values())) == 20


BOXED = """\
game: B
layout: {box: {rows: 2, cols: 2, query: fire, port: p, LAYOUT}}
domains: {Cell: {range: "0..3"}, Port: {range: "1..8"}}
secret: {at: {seq: Cell, len: 1}}
queries:
  fire:
    args: {p: Port}
    feedback: {out: "if p == at[0] + 1 then 0 else p", seen: "p > 4"}
"""


@pytest.mark.parametrize("layout, message", [
    ("holds: at, to: out, shown: seen", None),
    ("to: seen", "'to: seen' must be an int feedback"),
    ("shown: nope", "'shown: nope' must be a feedback"),
    ("holds: nope", "shades the cells 'nope' holds"),
])
def test_a_box_is_checked_against_its_ports_feedback_and_secret(tmp_path, layout, message):
    path = tmp_path / "boxed.yaml"
    path.write_text(BOXED.replace("LAYOUT", layout))
    if message is None:
        box = load_game(path).model.layout
        assert (box.kind, box.holds, box.to, box.shown) == ("box", "at", "out", "seen")
        return
    with pytest.raises(SpecError, match=message):
        load_game(path)
