"""OpenSpiel's Monte Carlo CFR on a card game's information states: how it trains and how its policy plays.

Run: python benchmarks/bench_solvers.py [--iterations N] [--deals K] [--games G] [--seed S]

The game is In 7th Heaven at its smallest (`tests/test_openspiel.py::SHORT_DECK`: 2 players, 4 colours, one card
of each +1..+5 per colour, hands of 4, the shortest track, no special spaces) as OpenSpiel's
`tower_seventh_heaven_dealt`: a chance node first deals one of K deals. Outcome-sampling MCCFR
(`open_spiel.python.algorithms.outcome_sampling_mccfr`) keys its regrets by `information_state_string`, the
sequence of the player's views. Figures printed:

- training: iterations, seconds per iteration, information states visited;
- the average policy's win share against a uniformly random player and against greedy (a `tower.games.ai` agent
  on the same game), every deal in both seats, with 95 % Wilson intervals (parity 50 %); the same for a uniformly
  random policy, for scale. Exploitability is out of reach: even this game has some 4^25 histories, too many
  for OpenSpiel's exact best response.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np
from duel import wilson
from open_spiel.python.algorithms import outcome_sampling_mccfr

from tower.games.ai import make_agent
from tower.games.interop import openspiel as tos

SHORT_DECK = dict(colours=4, forward_copies=1, backward_copies=0, white_sets=0, arrow_copies=0, text_cards=False,
                  hand_size=4, track_length=15, specials="")


def play(game, deal: int, seat: int, policy, opponent: str, rng: random.Random) -> float:
    """One game of deal `deal`: `policy` (None: uniform random) in `seat`, `opponent` ("random" or an AI spec)
    in the other; the policy's win share."""
    state = game.new_initial_state().child(deal)
    agent = None if opponent == "random" else make_agent(opponent, seed=rng.randrange(2**31))
    while not state.is_terminal():
        p = state.current_player()
        legal = state.legal_actions()
        if p == seat:
            if policy is None:
                action = rng.choice(legal)
            else:
                probs = policy.action_probabilities(state)
                action = rng.choices(list(probs), weights=list(probs.values()))[0]
            state.apply_action(action)
        elif agent is None:
            state.apply_action(rng.choice(legal))
        else:
            for action in state.stepper.actions_for(agent.choose(state.game_state)):
                state.apply_action(action)
    return state.returns()[seat]


def evaluate(game, deals: int, games: int, policy, opponent: str, label: str) -> None:
    rng = random.Random(7)
    won = n = 0.0
    for g in range(games):
        won += play(game, g % deals, (g // deals) % 2, policy, opponent, rng)
        n += 1
    lo, hi = wilson(won, int(n))
    print(f"  {label} vs {opponent}: {100 * won / n:.1f} % of the wins (95 % interval {100 * lo:.1f}-{100 * hi:.1f}, "
          f"n={int(n)}, parity 50 %)", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iterations", type=int, default=2000, help="MCCFR iterations (one sampled game each)")
    ap.add_argument("--deals", type=int, default=8, help="deals the chance node chooses from")
    ap.add_argument("--games", type=int, default=200, help="evaluation games per opponent")
    ap.add_argument("--seed", type=int, default=0, help="seed of the first deal and of the solver's sampling")
    args = ap.parse_args(argv)
    game = tos.load_game("seventh-heaven", dealt=True, players=2, deals=args.deals, seed=args.seed, **SHORT_DECK)
    np.random.seed(args.seed)  # the solver samples with numpy's global generator
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    start = time.perf_counter()
    for _ in range(args.iterations):
        solver.iteration()
    seconds = time.perf_counter() - start
    print(f"outcome-sampling MCCFR, short-deck In 7th Heaven, 2 players, {args.deals} deals: {args.iterations} "
          f"iterations in {seconds:.0f} s ({1000 * seconds / max(1, args.iterations):.1f} ms each), "
          f"{len(solver._infostates)} information states visited", flush=True)
    policy = solver.average_policy()
    for opponent in ("random", "greedy"):
        evaluate(game, args.deals, args.games, policy, opponent, "MCCFR average policy")
        evaluate(game, args.deals, args.games, None, opponent, "uniformly random policy")


if __name__ == "__main__":
    main()
