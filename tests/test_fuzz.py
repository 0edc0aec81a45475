"""Hostile input (property-based): the build loader, the record loader and every game's move parser.

Whatever they are given (truncated, mistyped, huge, deeply nested, NaN/Infinity, unicode look-alikes, wrong format
versions, a wrong type at any JSON path), they return a result or raise the project's clean errors (`BadInput`, and
`IllegalMove` when a parsed move is applied) whose text is one line; never another exception or a hang. A handful
of hostile files also go through the `tower` command itself: exit 2, one line on stderr, nothing written.

TOWER_FUZZ_EXAMPLES sets the examples per property (CI: the default; e.g. 5000 for a deep run).
"""

from __future__ import annotations

import json
import os

import pytest
from hostile import (
    CLEAN,
    DataSource,
    build_samples,
    game_samples,
    hostile_bytes,
    move_json,
    move_text,
    mutate,
    outcome,
    try_move,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tower.climbers.build import build_to_json, load_build, parse_build
from tower.games import game_names, load_record, replay
from tower.games.errors import BadInput

FUZZ = settings(
    max_examples=int(os.environ.get("TOWER_FUZZ_EXAMPLES", "150")),
    deadline=30_000,  # ms: a loaded 2-core machine took 6 s for one example; a hang still fails
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
GAMES = game_names()
BUILDS = build_samples()
SAMPLES = {g: game_samples(g) for g in GAMES}
RECORDS = [SAMPLES[g].record for g in GAMES]


def _one_line(exc: BaseException) -> None:
    text = str(exc)
    assert len(text.splitlines()) == 1, f"the error is not one line: {text!r}"


def _well_formed_error(kind: str, result) -> None:
    if kind == CLEAN:
        _one_line(result)


# --- the build loader ----------------------------------------------------------------------------------------

@FUZZ
@given(data=st.data())
def test_a_damaged_build_document_is_loaded_or_refused_cleanly(data):
    doc = mutate(DataSource(data), data.draw(st.sampled_from(BUILDS)))
    kind, result = outcome(lambda: parse_build(doc), (BadInput,))
    _well_formed_error(kind, result)
    if kind != CLEAN:  # what was accepted is a build that writes and reads back as itself
        assert parse_build(json.loads(json.dumps(build_to_json(result)))) == result


# --- the record loader ---------------------------------------------------------------------------------------

@FUZZ
@given(data=st.data())
def test_a_damaged_game_record_is_replayed_or_refused_cleanly(data):
    record = mutate(DataSource(data), data.draw(st.sampled_from(RECORDS)))
    kind, result = outcome(lambda: replay(record), (BadInput,))
    _well_formed_error(kind, result)
    if kind != CLEAN:  # what was accepted replays from its own record to the same state
        again = replay(json.loads(json.dumps(result.record())))
        assert json.dumps(again.to_json(), sort_keys=True) == json.dumps(result.to_json(), sort_keys=True)


# --- the file loaders ----------------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "load", "samples"), [("build", load_build, BUILDS),
                                                        ("record", load_record, RECORDS)])
@FUZZ
@given(data=st.data())
def test_a_damaged_file_is_loaded_or_refused_cleanly(name, load, samples, data, tmp_path_factory):
    path = tmp_path_factory.getbasetemp() / f"fuzz-{name}.json"
    path.write_bytes(hostile_bytes(DataSource(data), data.draw(st.sampled_from(samples))))
    kind, result = outcome(lambda: load(path), (BadInput,))
    _well_formed_error(kind, result)
    if kind == CLEAN:
        assert result.source == str(path), "the error names the file"


# --- the move parsers ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("game", GAMES)
@FUZZ
@given(data=st.data())
def test_a_hostile_move_text_is_read_or_refused_cleanly(game, data):
    sample = SAMPLES[game]
    src = DataSource(data)
    text = move_text(src, sample.vocab)
    state = src.pick(sample.states)
    for context in (state, None):
        kind, move = outcome(lambda ctx=context: sample.states[0].move_type.parse(text, ctx), (BadInput,))
        _well_formed_error(kind, move)
        if kind != CLEAN:
            try_move(state, move)
            assert type(move).from_json(json.loads(json.dumps(move.to_json()))) == move


@pytest.mark.parametrize("game", GAMES)
@FUZZ
@given(data=st.data())
def test_a_hostile_move_json_is_read_or_refused_cleanly(game, data):
    sample = SAMPLES[game]
    src = DataSource(data)
    form = move_json(src, sample.vocab, sample.move_json)
    kind, move = outcome(lambda: sample.states[0].move_type.from_json(form), (BadInput,))
    _well_formed_error(kind, move)
    if kind != CLEAN:
        try_move(src.pick(sample.states), move)


FOUND_BY_FUZZING = [  # once crashed with ValueError: '²' passes str.isdigit() but not int(); int() refuses 4301+ digits
    ("diabolo", "place red ² angel"),
    ("diabolo", "discard blue " + "1" * 5000),
    ("seventh-heaven", "play mushroom ²"),
    ("seventh-heaven", "play foot " + "9" * 5000 + " red"),
    ("partners", "7: y1+²"),
    ("partners", "7: y1+3 y2+" + "4" * 5000),
]


@pytest.mark.parametrize(("game", "text"), FOUND_BY_FUZZING, ids=[f"{g}-{i}" for i, (g, _) in enumerate(FOUND_BY_FUZZING)])
def test_number_look_alikes_and_endless_numbers_in_a_move_are_bad_input(game, text):
    for parse in (lambda: SAMPLES[game].states[0].move_type.parse(text, SAMPLES[game].states[0]),
                  lambda: SAMPLES[game].states[0].move_type.from_json(text)):
        with pytest.raises(BadInput) as info:
            parse()
        _one_line(info.value)


@pytest.mark.parametrize("deck", ["heart=²", "heart=99999999999", "heart=" + "1" * 5000])
def test_a_partners_deck_option_with_an_odd_count_is_bad_input_not_a_memory_bomb(deck):
    record = {**SAMPLES["partners"].record, "options": {"deck": deck}, "moves": []}
    with pytest.raises(BadInput) as info:
        replay(record)
    assert info.value.where == "$.options.deck"


# --- through the command line ---------------------------------------------------------------------------------

HOSTILE_FILES = {
    "truncated": json.dumps(BUILDS[0])[:300].encode(),
    "nan": json.dumps({**RECORDS[0], "seed": "NAN"}).replace('"NAN"', "NaN").encode(),
    "nested": b"[" * 100_000 + b"]" * 100_000,
    "not-utf8": b'{"format": "tower-build/1", "blocks": [\xff\xfe]}',
    "wrong-version": json.dumps({**RECORDS[1], "format": "game-record/2"}).encode(),
    "line-break-in-a-key": json.dumps({**BUILDS[2], "blocks\n\u2028": []}).encode(),
    "wrong-type-deep": json.dumps({**RECORDS[2], "moves": [*RECORDS[2]["moves"][:3], {"x": [1e308]}]}).encode(),
}
CLI_CASES = [
    (["check"], "truncated"), (["check"], "nested"), (["check"], "not-utf8"), (["check"], "line-break-in-a-key"),
    (["replay", "--text"], "nan"), (["replay", "--text"], "wrong-version"), (["replay", "--text"], "wrong-type-deep"),
    (["view", "--screenshot", "out.png"], "nested"), (["view", "--screenshot", "out.png"], "wrong-type-deep"),
]


@pytest.mark.parametrize(("command", "name"), CLI_CASES, ids=[f"{c[0]}-{n}" for c, n in CLI_CASES])
def test_a_hostile_file_through_the_cli_exits_2_with_one_line_and_writes_nothing(tower_cli, tmp_path, command, name):
    path = tmp_path / f"{name}.json"
    path.write_bytes(HOSTILE_FILES[name])
    verb, *flags = command
    proc = tower_cli([verb, str(path), *flags], cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    (line,) = proc.stderr.splitlines()
    assert str(path) in line
    assert sorted(p.name for p in tmp_path.iterdir()) == [path.name], "nothing is written"


def test_an_error_quoting_a_huge_input_stays_a_short_single_line():
    from tower.games import new_game
    from tower.games.errors import MAX_LINE, BadInput

    state = new_game("diabolo", 3, seed=1)
    with pytest.raises(BadInput) as err:
        type(state).move_type.parse("place " + "x" * 100_000, state)
    line = str(err.value)
    assert len(line) <= MAX_LINE + 40 and len(line.splitlines()) == 1
    assert line.startswith("at $") or "place" in line[:120]
