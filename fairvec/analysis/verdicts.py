# The quotes are the documents' own Russian words: Cyrillic letters are intended.
# ruff: noqa: RUF001
"""Every fairness claim of the five source documents, with its exact verdict.

Each claim is a quote (the document's own words, in its own language, with an English
gloss) and a function that computes the verdict from the exact distributions of
:mod:`fairvec.analysis.outcomes`: what is exactly true and the size of any bias. The
quotes are typed (they are the documents' words); every number in a verdict is computed.

``render()`` writes docs/verdicts.md; ``fairvec analyze verdicts --check`` fails when the
committed file differs from what the code computes now, like ``fairvec generate --check``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from fairvec.analysis import numbers, outcomes
from fairvec.analysis.exact import Distribution, decimal, power_of_two, ratio, scientific
from fairvec.analysis.outcomes import Options, money
from fairvec.reference import casino, nardy, tenhou

CASINO = "000_162a66a6a1bf86ea.txt"
BATTLE = "001_ff93235b333a485f.txt"
TENHOU = "002_f6528bc9046dd8c8.txt"
NARDY = "003_c4a62d84289b5613.txt"
VIDEOPOKER = "004_358a9db53bf25e27.txt"
DOCUMENTS = {
    CASINO: "casino (Russian)",
    BATTLE: "battle (English)",
    TENHOU: "Tenhou (Chinese)",
    NARDY: "nardy (Russian)",
    VIDEOPOKER: "video poker (English)",
}
ANALYZE = "fairvec analyze"


@dataclass(frozen=True)
class Verdict:
    word: str  # "true", "true up to a bias", "false", "not checkable"
    truth: str  # what is exactly true
    bias: str  # the size of any bias ("none" when exact)


@dataclass(frozen=True)
class Claim:
    id: str
    document: str
    section: str
    quote: str  # the document's words, original language
    gloss: str  # English gloss ("" when the quote is English)
    command: str  # recomputes the verdict
    verdict: Callable[[], Verdict]
    slow: bool = False  # needs the video poker solver (seconds per table)


# --- verdict helpers -------------------------------------------------------------------------


def counts_text(dist: Distribution, limit: int = 6) -> str:
    """"fire 1,431,655,766, grass 1,431,655,765, ... of 2^32" for small distributions."""
    shown = ", ".join(f"{key} {n:,}" for key, n in list(dist.counts.items())[:limit])
    more = ", ..." if len(dist.counts) > limit else ""
    return f"{shown}{more} of {power_of_two(dist.total)}"


def bias_text(dist: Distribution) -> str:
    key, bias = dist.largest_bias()
    if bias == 0:
        return "none"
    sign = "+" if bias > 0 else "-"
    return (f"largest: {key} {sign}{scientific(abs(bias))} ({ratio(bias)}); "
            f"total variation {scientific(dist.total_variation())}")


def listing(keys: list[str]) -> str:
    """"fire comes" or "25, 26 come": the favoured outcomes as the subject of a sentence."""
    return f"{keys[0]} comes" if len(keys) == 1 else f"{', '.join(keys)} come"


def one_number_game(name: str, promised: str, options: Options | None = None) -> Verdict:
    """Dice, Double, x50, Jackpot, Slot: floor(number * m) over the 2^64 byte strings."""
    dist = outcomes.ANALYSES[name](options or Options())
    top = list(dist.counts)[-1]
    return Verdict(
        "true up to a bias",
        f"{len(dist.ideal)} outcomes {promised}, each within "
        f"{scientific(abs(dist.largest_bias()[1]))} of 1/{len(dist.ideal)}; the number 1.0 "
        f"(1,024 of 2^64 byte strings) gives {top}, outside the range",
        bias_text(dist),
    )


def modulo_verdict(name: str, options: Options, what: str) -> Verdict:
    dist = outcomes.ANALYSES[name](options)
    favoured = [key for key in dist.counts if dist.bias(key) > 0]
    remainder = (1 << 32) % len(dist.counts)
    return Verdict(
        "true up to a bias",
        f"{what}: {counts_text(dist)}; 2^32 = {remainder} (mod {len(dist.counts)}), so "
        f"{listing(favoured)} from one more ticket than the rest",
        bias_text(dist),
    )


# --- 000 casino ------------------------------------------------------------------------------


def numbers_in_unit_interval() -> Verdict:
    dist = outcomes.casino_numbers(Options())
    ones = numbers.UNITS - numbers.first_u_at_least(1.0)
    return Verdict(
        "false (rarely)",
        f"the number is exactly 1.0 for {ones:,} of 2^64 byte strings (ff ff ff ff ff ff fc 00 "
        "and above: the double sum rounds up); all others lie in [0, 1). Nor are the numbers "
        f"uniform doubles: {dist.notes[2]}",
        f"P(1.0) = {ratio(Fraction(ones, numbers.UNITS))}",
    )


def unbiased_generator() -> Verdict:
    games = [outcomes.ANALYSES[name](Options()) for name in
             ("casino.dice", "casino.double", "casino.x50", "casino.slot")]
    worst = max(games, key=lambda dist: dist.total_variation())
    return Verdict(
        "not checkable (bytes); true up to a bias (numbers)",
        "that HMAC-SHA512 bytes are unbiased is an assumption no test suite proves; from "
        "uniform bytes, numbersFromBytes gives doubles whose weights alternate within each "
        "binade (ties to even, rounded twice) and 1.0 with probability 2^-54; Dice, Double, "
        "x50 and Slot are within total variation "
        f"{scientific(worst.total_variation())} of uniform (largest: {worst.title.split(':')[0]})",
        f"largest total variation of a one-number game: {scientific(worst.total_variation())}",
    )


def mines_fisher_yates() -> Verdict:
    steps = [outcomes.casino_mines(Options(cells=cells)) for cells in range(2, 26)]
    worst = max(steps, key=lambda dist: abs(dist.largest_bias()[1]))
    bias = worst.largest_bias()[1]
    return Verdict(
        "true up to a bias",
        "each of the 24 picks floor(number * cells) is within "
        f"{scientific(abs(bias))} of 1/cells ({worst.title.split(',')[0].split(': ')[1]}); "
        f"the picks use different bytes, so an order's probability is their product: "
        f"{steps[-1].notes[-1]}; the number 1.0 splices past the end (no cell) with "
        "probability 2^-54 per pick",
        bias_text(worst),
    )


def tower_fisher_yates() -> Verdict:
    dist = outcomes.casino_tower(Options())
    return Verdict(
        "false (printed code)",
        "the printed code splices at the raw number, which JavaScript truncates to 0: every "
        f"pick is position 0 (all but {dist.counts['1']:,} of 2^64 byte strings; the number 1.0 "
        "gives position 1), every row [0, 1, 2, 3]. The Fisher-Yates "
        "the text describes (floor(number * cells)) is the Mines pick with 5 to 2 cells",
        f"total variation {decimal(dist.total_variation(), 2)} per pick (printed code)",
    )


def plinko_binomial() -> Verdict:
    directions = numbers.scaled_floor_counts(2)
    worst = max((outcomes.casino_plinko(Options(pins=pins)) for pins in range(8, 17)),
                key=lambda dist: dist.total_variation())
    half = numbers.first_u_at_least(math.nextafter(0.5, 1.0)) - numbers.first_u_at_least(0.5)
    return Verdict(
        "true up to a bias",
        f"each pin goes left for {directions[0]:,} and right for {directions[1]:,} of 2^64 byte "
        f"strings (exactly even: the code sends the {half:,} strings whose number is 0.5 "
        f"right; the text's \"> 0.5\" would send them left); the other {directions[2]:,} (the "
        "number 1.0) give 2, so a bucket can exceed the pin count. The bucket is "
        "Binomial(n, 1/2) up to that",
        f"largest total variation from Binomial(n, 1/2), 8 to 16 pins: "
        f"{scientific(worst.total_variation())} ({worst.title.split(':')[1].strip()})",
    )


def crash_exponential(name: str, edge: float) -> Verdict:
    cents = outcomes.crash_table(edge)[0]
    checks = []
    for target in (200, 1000, 10000):
        exact = outcomes.cashout_return(edge, target) / Fraction(target, 100)
        checks.append(f"P(>= {money(target)}) = {decimal(exact, 7)}")
    return Verdict(
        "false",
        f"P(multiplier >= t) is about {1 - edge:g}/t ({'; '.join(checks)}): a discrete "
        "Pareto tail (its logarithm is close to exponential), not an exponential "
        f"distribution; the largest multiplier is {money(cents[0])}",
        "not a bias: a different family of distributions",
    )


def crash_edge(name: str, edge: float) -> Verdict:
    worst, best, gap = outcomes.return_range(edge)
    at_two = outcomes.cashout_return(edge, 200)
    return Verdict(
        "true up to a bias",
        f"cashing out at t returns t x P(multiplier >= t), exactly {decimal(best[1])} at "
        f"{money(best[0])} (the highest), {decimal(at_two)} at 2.00, and between "
        f"{decimal(worst[1])} (at {money(worst[0])}) and {decimal(best[1])} over every multiplier "
        f"that occurs: toFixed(2) shows a value from t - 0.005 up as t, so a target wins a "
        f"little more often than (1 - {edge:g})/t, most at low targets; a target between two "
        f"multipliers that occur pays less (down "
        f"to {decimal(gap[1])} at {money(gap[0])})",
        f"house edge {percent(1 - best[1])} to {percent(1 - worst[1])}, not a fixed "
        f"{percent(Fraction(edge).limit_denominator(1000))}",
    )


def percent(value: Fraction) -> str:
    return f"{decimal(value * 100, 3)}%"


def missing_seed_list() -> Verdict:
    return Verdict(
        "not checkable",
        "the page says the constant seeds are listed below, but the lists are empty "
        "(\"приведены ниже:\" is followed by nothing), so no multiplayer round can be "
        "reproduced from the document",
        "n/a",
    )


def salt_commitment() -> Verdict:
    return Verdict(
        "not checkable",
        "nothing derived from the salt (no hash) is shown before the round, so the reveal "
        "cannot be checked against a commitment; what can be checked is that the revealed "
        "seeds reproduce the bytes shown (casino.commitment vectors)",
        "n/a",
    )


# --- 001 battle ------------------------------------------------------------------------------


def battle_attack() -> Verdict:
    dist = outcomes.battle_attack(Options())
    parts = ", ".join(f"{key} {decimal(dist.probability(key) * 100, 9)}%" for key in dist.counts)
    return Verdict("true up to a bias", f"{parts} ({counts_text(dist)})", bias_text(dist))


def battle_damage(attack: str, low: int, high: int) -> Callable[[], Verdict]:
    def verdict() -> Verdict:
        dist = outcomes.battle_damage(Options(attack=attack))
        values = [int(key) for key in dist.counts]
        favoured = [key for key in dist.counts if dist.bias(key) > 0]
        return Verdict(
            "true up to a bias",
            f"the damage is always {min(values)} to {max(values)} (range stated: {low} to "
            f"{high}); {listing(favoured)} from one more ticket than the others "
            f"({counts_text(dist, 3)})",
            bias_text(dist),
        )

    return verdict


# --- 002 tenhou ------------------------------------------------------------------------------


def tenhou_hash_fairness() -> Verdict:
    steps = [outcomes.tenhou_shuffle(Options(cells=cells)) for cells in range(2, 137)]
    worst = max(steps, key=lambda dist: dist.total_variation())
    wall4 = outcomes.tenhou_likeliest_wall(4)
    wall3 = outcomes.tenhou_likeliest_wall(3)
    return Verdict(
        "true up to a bias",
        "taking the 32-bit words as uniform (SHA-512 output), each swap rnd[i] % (N - i) "
        f"favours the low remainders by one word in 2^32 when 2^32 is not a multiple of N - i "
        f"(largest at {worst.title.split('% ')[1].split(' ')[0]} tiles left); the steps use "
        f"different words, so the likeliest 136-tile wall is {scientific(wall4 - 1)} above "
        f"1/136! (108 tiles: {scientific(wall3 - 1)} above 1/108!), relative",
        bias_text(worst),
    )


def tenhou_dice_independent() -> Verdict:
    shuffled = {size: set(range(size - 1)) for size in tenhou.WALL_SIZE.values()}
    overlap = [size for size, used in shuffled.items() if used & set(tenhou.DICE_AT)]
    dist = outcomes.tenhou_dice(Options())
    word = "true" if not overlap else "false"
    return Verdict(
        word,
        f"the dice read rnd[{tenhou.DICE_AT[0]}] and rnd[{tenhou.DICE_AT[1]}]; the shuffle reads "
        f"rnd[0..{max(shuffled[136])}] (136 tiles) or rnd[0..{max(shuffled[108])}] (108): "
        f"{'no word is shared' if not overlap else 'words are shared'}, so the dice cannot "
        f"change the wall. Each die: {counts_text(dist)}",
        bias_text(dist),
    )


def tenhou_wall_fixed() -> Verdict:
    return Verdict(
        "true",
        "every wall of the match is a function of the mtLocal seed alone (MT19937, then "
        "SHA-512 of 288 words per hand); the tenhou.game vectors reproduce Tenhou's "
        "validation data and 341 hands of 33 real logs from their seeds",
        "n/a",
    )


def tenhou_seed_choice() -> Verdict:
    return Verdict(
        "true (a limitation)",
        "the commitment (SHA-512 of seat order and seed) fixes the seed before the match "
        "but says nothing about how it was chosen; nothing published constrains that choice",
        "n/a",
    )


# --- 003 nardy -------------------------------------------------------------------------------


def nardy_cuts_cannot_bias() -> Verdict:
    for first in nardy.CUTS:
        for second in nardy.CUTS:
            dist = outcomes.nardy_rolls(Options(cuts=(first, second)))
            if dist.total_variation() != 0:
                raise AssertionError(f"cuts {first} {second} bias a uniform sequence")
    return Verdict(
        "true (for a uniform sequence only)",
        "for each of the 49 pairs of cuts the rolls read disjoint positions, so from a "
        "uniform sequence every roll is uniform on the 36 ordered pairs and the rolls are "
        "independent. The cuts only choose which positions are read: they cannot make a "
        "non-uniform sequence fair (a sequence of sixes rolls 66 under every cut)",
        "none (given a uniform sequence)",
    )


def nardy_supply() -> Verdict:
    supplies = {
        (first, second): len(outcomes.nardy_pairs(first, second))
        for first in nardy.CUTS for second in nardy.CUTS
    }
    fewest = min(supplies, key=lambda cuts: supplies[cuts])
    most = max(supplies, key=lambda cuts: supplies[cuts])
    return Verdict(
        "not chance",
        f"running out is decided by the cuts and the game's length, not by chance: "
        f"{outcomes.NARDY_SEQUENCE} numbers give {supplies[fewest]} rolls for cuts "
        f"{fewest[0]} and {fewest[1]} (the fewest) up to {supplies[most]} for {most[0]} and "
        f"{most[1]}; each dropped pair (a forbidden roll) uses one more",
        "n/a",
    )


def nardy_site_cannot_favour() -> Verdict:
    return Verdict(
        "not checkable",
        "the sequence is committed before the cuts (the archive), so the site cannot adapt "
        "it to them; but the cuts select one of only 49 readings of a sequence the site "
        "wrote, and nothing published shows the sequence was drawn at random",
        "n/a",
    )


def nardy_password() -> Verdict:
    return Verdict(
        "not checkable",
        "the password's alphabet and the archive format are not given, so its strength "
        "cannot be computed",
        "n/a",
    )


# --- 004 video poker -------------------------------------------------------------------------


def videopoker_cards() -> Verdict:
    dist = outcomes.videopoker_card(Options())
    exhausted = outcomes.videopoker_exhausted()
    word = "true" if dist.total_variation() == 0 else "true up to a bias"
    return Verdict(
        word,
        "byte % 100 <= 51 accepts 156 of the 256 bytes, exactly 3 for each of the 52 values "
        "(n, n + 100, n + 200), so each new card is uniform over the cards not yet found; the "
        "64 bytes hold fewer than ten different cards (\"No more space in hash\") with "
        f"probability {scientific(exhausted)} ({ratio(exhausted)})",
        bias_text(dist),
    )


def videopoker_return(name: str, stated: str) -> Callable[[], Verdict]:
    def verdict() -> Verdict:
        from fairvec.analysis import videopoker  # NumPy: the optional 'analysis' extra

        analysis = videopoker.analyze(videopoker.PAY_TABLES[name])
        computed = videopoker.decimal(analysis.returns)
        word = "true" if computed == stated else "false"
        return Verdict(
            word,
            f"under optimal play the return is exactly {analysis.returns} = {computed} "
            f"(document: {stated}), house edge {percent(1 - analysis.returns)}",
            "n/a (a return, not a bias)",
        )

    return verdict


# --- the claims --------------------------------------------------------------------------


CLAIMS: tuple[Claim, ...] = (
    Claim("casino-numbers-in-unit-interval", CASINO, "Генератор случайных чисел",
          "каждый блок используется для генерации случайного числа в диапазоне [0, 1)",
          "each block is used to generate a random number in the range [0, 1)",
          f"{ANALYZE} casino.numbers", numbers_in_unit_interval),
    Claim("casino-unbiased-sequences", CASINO, "Батарея тестов Dieharder",
          "приведенный генератор случайных чисел действительно генерирует несмещенные "
          "случайные последовательности",
          "the generator above really generates unbiased random sequences",
          f"{ANALYZE} casino.numbers", unbiased_generator),
    Claim("casino-mines-permutation", CASINO,
          "Перевод чисел в результат; Генерация результата Mines",
          "переведем в позиции мин с помощью алгоритма Фишера-Йетса ... таким образом "
          "создавая случайную перестановку",
          "turn them into mine positions with the Fisher-Yates algorithm ... so creating a "
          "random permutation",
          f"{ANALYZE} casino.mines --cells 25", mines_fisher_yates),
    Claim("casino-tower-permutation", CASINO, "Генерация результата Tower",
          "каждый подмассив используется для генерации перестановки в соответствующем ряду "
          "башни с помощью алгоритма Фишера-Йетса",
          "each sub-array generates the permutation of its row of the tower with the "
          "Fisher-Yates algorithm",
          f"{ANALYZE} casino.tower", tower_fisher_yates),
    Claim("casino-slot-reels", CASINO, "Генерация результата Slot",
          "преобразуются во вращения каждого барабана с помощью умножения на его длину",
          "are turned into each reel's spin by multiplying by its length",
          f"{ANALYZE} casino.slot --reel 5",
          lambda: one_number_game("casino.slot", "(positions 0-40 of reel 5)", Options(reel=5))),
    Claim("casino-plinko-binomial", CASINO, "Генерация результата Plinko",
          "Полученное значение принадлежит биномиальному распределению, которое является "
          "математической моделью доски Гальтона.",
          "the value follows the binomial distribution, the mathematical model of a Galton board",
          f"{ANALYZE} casino.plinko --pins 16", plinko_binomial),
    Claim("casino-dice-range", CASINO, "Генерация результата Dice",
          "переводится в результат Dice в интервале [0..100]",
          "is turned into a Dice result in the interval [0..100]",
          f"{ANALYZE} casino.dice",
          lambda: one_number_game("casino.dice", "0.00 to 100.00")),
    Claim("casino-double-range", CASINO, "Генерация результата Double",
          "переводится в сектор колеса в интервале [0..14]",
          "is turned into a wheel sector in the interval [0..14]",
          f"{ANALYZE} casino.double",
          lambda: one_number_game("casino.double", "0 to 14")),
    Claim("casino-x50-range", CASINO, "Генерация результата x50",
          "переводится в сектор колеса в интервале [0..53]",
          "is turned into a wheel sector in the interval [0..53]",
          f"{ANALYZE} casino.x50",
          lambda: one_number_game("casino.x50", "0 to 53")),
    Claim("casino-jackpot-ticket", CASINO, "Генерация результата Jackpot",
          "переводится в выигрышный билет путем арифметического умножения на общее число "
          "билетов, округленного вниз, с поправкой на единицу",
          "is turned into the winning ticket by multiplying by the number of tickets, rounded "
          "down, plus one",
          f"{ANALYZE} casino.jackpot --tickets 100",
          lambda: one_number_game("casino.jackpot", "(tickets 1-100)", Options(tickets=100))),
    Claim("casino-crash-exponential", CASINO, "Генерация результата Crash",
          "переводится в коэффициент Crash, имеющий экспоненциальное распределение",
          "is turned into a Crash multiplier that has an exponential distribution",
          f"{ANALYZE} casino.crash",
          lambda: crash_exponential("crash", casino.CRASH_EDGE)),
    Claim("casino-crash-edge", CASINO, "Генерация результата Crash (crashOutcome)",
          "max(1, 1000000 / (Math.floor(number * 1000000) + 1) * (1 - 0.05)).toFixed(2)",
          "a fixed house edge of 5% (the factor 1 - 0.05)",
          f"{ANALYZE} casino.crash", lambda: crash_edge("crash", casino.CRASH_EDGE)),
    Claim("casino-overgo-exponential", CASINO, "Генерация результата Overgo",
          "переводится в коэффициент Overgo, имеющий экспоненциальное распределение",
          "is turned into an Overgo multiplier that has an exponential distribution",
          f"{ANALYZE} casino.overgo",
          lambda: crash_exponential("overgo", casino.OVERGO_EDGE)),
    Claim("casino-overgo-edge", CASINO, "Генерация результата Overgo (overgoOutcome)",
          "max(1, 1000000 / (Math.floor(number * 1000000) + 1) * (1 - 0.03)).toFixed(2)",
          "a fixed house edge of 3% (the factor 1 - 0.03)",
          f"{ANALYZE} casino.overgo", lambda: crash_edge("overgo", casino.OVERGO_EDGE)),
    Claim("casino-constant-seeds", CASINO, "Server seed; Client seed",
          "гарантией честности в данных режимах является тот факт, что серверный сид является "
          "постоянным ... Режимы и соответствующие им постоянные серверные сиды приведены ниже:",
          "the guarantee of fairness in these modes is that the server seed is constant ... "
          "the modes and their constant server seeds are listed below:",
          "—", missing_seed_list),
    Claim("casino-salt-reveal", CASINO, "Salt",
          "недоступен игроку перед началом игры, однако отображается в конце игры (так "
          "называемая фаза раскрытия в схеме обязательства)",
          "is not available to the player before the game but is shown at its end (the "
          "so-called reveal phase of the commitment scheme)",
          "fairvec run --algorithm casino.commitment -- ADAPTER", salt_commitment),
    Claim("battle-move-uniform", BATTLE, "Picking Moves",
          "Convert the first 4 bytes of the hex string to an integer and apply modulo 3. "
          "Choose fire for result 0, grass for result 1, and water for result 2.", "",
          f"{ANALYZE} battle.move",
          lambda: modulo_verdict("battle.move", Options(), "each move from a uniform ticket")),
    Claim("battle-attack-ranges", BATTLE, "Calculating Miss, Hit, Super Active Chances",
          "Ticket ranges for the result (inclusive) and respective attack types: 0 - 19: Miss "
          "20 - 51: Super Active 52 - 99: Regular", "",
          f"{ANALYZE} battle.attack", battle_attack),
    Claim("battle-damage-regular", BATTLE, "Calculating Damage (Regular Attacks)",
          "Take the ticket modulo 21 and add 25 to confine the normal attack damage "
          "possibilities between 25 and 45 inclusive.", "",
          f"{ANALYZE} battle.damage --attack Hit", battle_damage("Hit", 25, 45)),
    Claim("battle-damage-super", BATTLE, "Calculating Damage (Super Active Attacks)",
          "Take the ticket modulo 15 and add 46 to confine the super active attack damage "
          "possibilities between 46 and 60 inclusive.", "",
          f"{ANALYZE} battle.damage --attack 'Super Active'",
          battle_damage("Super Active", 46, 60)),
    Claim("tenhou-hash-fairness", TENHOU, "天凤牌山生成算法讲解 (4. rnd)",
          "rnd 数组的生成结果由于散列算法的性质,保证了公平性",
          "by the nature of the hash algorithm, the rnd array's results guarantee fairness",
          f"{ANALYZE} tenhou.shuffle --cells 136", tenhou_hash_fairness),
    Claim("tenhou-dice-no-effect", TENHOU, "玩家可以进行哪些检定 (牌山)",
          "骰子对牌山没有影响,不投也无所谓",
          "the dice have no effect on the wall; it does not matter if they are not thrown",
          f"{ANALYZE} tenhou.dice", tenhou_dice_independent),
    Claim("tenhou-wall-fixed", TENHOU, "结论以及和雀魂的对比",
          "一旦mtLocal的种子定下来,整场比赛每一小局的牌山都定下来了 ... 角田无法在对局中篡改牌山",
          "once the mtLocal seed is fixed, the wall of every hand of the match is fixed ... "
          "Tsunoda cannot tamper with the wall during the match",
          "fairvec run --bundled python --algorithm 'tenhou.*'", tenhou_wall_fixed),
    Claim("tenhou-seed-choice", TENHOU, "也有以下不足之处",
          "玩家无法检验角田有没有故意选择牌山",
          "players cannot check whether Tsunoda chose the walls on purpose",
          "—", tenhou_seed_choice),
    Claim("nardy-cuts-keep-randomness", NARDY, "Контроль честности в игре нарды (introduction)",
          "добавить возможность игрокам повлиять на выпадающие кубики, не влияя при этом на "
          "случайность распределения",
          "to let players influence the dice that come up without affecting the randomness "
          "of the distribution",
          f"{ANALYZE} nardy.rolls --cuts 4 5", nardy_cuts_cannot_bias),
    Claim("nardy-running-out", NARDY, "Генерация бросков",
          "В случае нехватки чисел в последовательности (вероятность чего крайне невелика) "
          "игра продолжается с обычной генерацией бросков.",
          "should the sequence run out of numbers (the probability of which is extremely "
          "small), the game goes on with ordinary dice",
          f"{ANALYZE} nardy.rolls --cuts 4 4", nardy_supply),
    Claim("nardy-site-cannot-favour", NARDY, "Краткий анализ",
          "дает участникам гарантию невозможности игровой площадке \"подыграть\" кому-то из "
          "игроков. Это обеспечивается заранее заданной общей последовательностью бросков и "
          "срезками.",
          "guarantees the players that the site cannot \"play along\" with either of them, "
          "by the common sequence fixed in advance and the cuts",
          "—", nardy_site_cannot_favour),
    Claim("nardy-password", NARDY, "Алгоритм контроля честности в нардах",
          "длина пароля - 16 символов, что гарантирует невозможность его вскрытия по крайней "
          "мере за сутки",
          "the password is 16 characters long, which guarantees it cannot be broken within "
          "at least a day",
          "—", nardy_password),
    Claim("videopoker-cards-uniform", VIDEOPOKER, "Fair Gaming",
          "the game finds ten unique random numbers from 0 to 51, each with 1/52 probability",
          "", f"{ANALYZE} videopoker.card", videopoker_cards),
    Claim("videopoker-return-jacks", VIDEOPOKER, "Analysis (Jacks or Better)",
          "The lower right cell shows a return of 97.97%, which equates to a house edge of "
          "2.03%. ... Totals | 1,661,102,543,100 | 1.000000 | 0.979696", "",
          f"{ANALYZE} videopoker --pay-table jacks-or-better",
          videopoker_return("jacks-or-better", "0.979696"), slow=True),
    Claim("videopoker-return-tens", VIDEOPOKER, "Analysis (Tens or Better)",
          "The lower right cell shows a return of 97.97%, which equates to a house edge of "
          "2.03%. ... Totals | 1,661,102,543,100 | 1.000000 | 0.979657", "",
          f"{ANALYZE} videopoker --pay-table tens-or-better",
          videopoker_return("tens-or-better", "0.979657"), slow=True),
    Claim("videopoker-return-bonus", VIDEOPOKER, "Analysis (Bonus Poker)",
          "The lower right cell shows a return of 97.94%, which equates to a house edge of "
          "2.06%. ... Totals | 1,661,102,543,100 | 1.000000 | 0.979398", "",
          f"{ANALYZE} videopoker --pay-table bonus-poker",
          videopoker_return("bonus-poker", "0.979398"), slow=True),
)


# --- the generated page ----------------------------------------------------------------------

HEADER = """\
# Every fairness claim, checked exactly

GENERATED by `fairvec analyze verdicts --write docs/verdicts.md`; do not edit by hand.
`fairvec analyze verdicts --check` (run in CI) fails when this page is stale.

One row per claim the five source documents make about fairness or distributions: the
document and section, its words (with an English gloss), the verdict, what is exactly
true, the size of any bias, and the command that recomputes it. Every number is computed
with integers and fractions over all equally likely inputs (2^32 tickets, 2^64 byte
strings, 256 bytes, die faces), never sampled. The inputs themselves (SHA-256, HMAC-SHA512,
SHA-512 output, a site's sequence) are taken to be uniform: that is the one assumption.
"""

COLUMNS = "| id | section | claim | verdict | what is exactly true | bias | recompute |"


def cell(text: str) -> str:
    """Markdown table cell: pipes escaped, one line."""
    return " ".join(text.replace("|", "\\|").split())


def row(claim: Claim) -> str:
    verdict = claim.verdict()
    quote = f"«{claim.quote}»" + (f" ({claim.gloss})" if claim.gloss else "")
    command = f"`{claim.command}`" if claim.command != "—" else "—"
    cells = (f"`{claim.id}`", claim.section, quote, f"**{verdict.word}**", verdict.truth,
             verdict.bias, command)
    return "| " + " | ".join(cell(text) for text in cells) + " |"


def render(include_slow: bool = True) -> str:
    """The whole page; without ``include_slow`` the video poker return rows are left out
    (they need the optimal-play solver, seconds per table)."""
    parts = [HEADER]
    for document, family in DOCUMENTS.items():
        claims = [claim for claim in CLAIMS if claim.document == document]
        parts.append(f"\n## `{document}`: {family}\n\n{COLUMNS}\n|---|---|---|---|---|---|---|")
        parts.extend(row(claim) for claim in claims if include_slow or not claim.slow)
    return "\n".join(parts) + "\n"
