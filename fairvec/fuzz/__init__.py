"""``fairvec fuzz``: differential fuzzing of an adapter against the reference.

Random inputs, drawn from a seeded and documented generator (spec/fuzz.yaml, the input
schemas, generated sets and cases of the specs), go to the adapter through the runner's
Session; every answer is compared with the reference's, computed in-process. This package
and the generator are the only callers of the reference outside it; the runner never is.
"""

# --max-details: mismatches reported (and shrunk) in full. Here, not in cli.py or
# command.py, because both need it and command.py is imported by cli.py.
MAX_DETAILS = 5
