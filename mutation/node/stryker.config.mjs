// Stryker on the bundled Node port (adapters/node), run by mutation/cli.py (docs/mutation.md):
// `python -m mutation run --port node`. The driver starts Stryker with adapters/node as the
// working folder and passes what changes per run through the environment.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const environment = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is unset: run Stryker through python -m mutation (docs/mutation.md)`);
  return value;
};

export default {
  // The command runner: each mutant is judged by mutation/judge.py (fixed vectors, then
  // accumulated vectors, then a fixed-seed fuzz), switched on by __STRYKER_ACTIVE_MUTANT__.
  testRunner: 'command',
  commandRunner: { command: environment('FAIRVEC_MUTATION_COMMAND') },
  // No coverage: a command runner reports none; every mutant is run.
  coverageAnalysis: 'off',
  // Mutator classes: all of Stryker's apply to a port that computes outputs, with one
  // exclusion by place rather than by class (ignore-messages.mjs): the message text of an
  // error, which the protocol never compares. StringLiteral stays on: outputs ('Hit',
  // 'fire') and error codes ('bad-hash') are string literals the vectors compare.
  mutator: { excludedMutations: [] },
  ignorers: ['error-messages'],
  plugins: ['@stryker-mutator/*', path.join(here, 'ignore-messages.mjs')],
  // One mutant at a time: the judge itself starts fairvec and the port (docs/mutation.md:
  // spread the campaign over machines with --shard, not over cores of a shared one).
  concurrency: 1,
  // A survivor's three stages take tens of seconds; the dry run only the first. A looping
  // mutant is stopped by the runner's per-vector timeout, not by Stryker's.
  timeoutMS: 600000,
  timeoutFactor: 10,
  // The dry run (the instrumented, unmutated port on its fixed vectors) may take long: every
  // expression of the chain walks carries Stryker's mutant switch, and bustabit.js's dry run
  // outlasted Stryker's default 5 minutes (the fourth campaign, docs/mutation.md).
  dryRunTimeoutMinutes: 60,
  // vendor/node_modules holds @noble (bustabit's BLS): the adapter loads every family, so
  // the sandbox needs it (Stryker leaves every node_modules out by default).
  ignorePatterns: ['!vendor/node_modules/**'],
  symlinkNodeModules: false,
  // The port reads its input schemas from ../../vectors (inputs.js): the driver makes the
  // sandboxes two folders below a work folder holding a link to the vectors.
  tempDirName: environment('FAIRVEC_MUTATION_STRYKER_TMP'),
  cleanTempDir: true,
  reporters: ['json'],
  jsonReporter: { fileName: environment('FAIRVEC_MUTATION_STRYKER_REPORT') },
  // Stryker's own "was any test run" guard: a command runner runs one "test".
  allowEmpty: false,
  logLevel: 'warn',
};
