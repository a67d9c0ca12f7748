// A Stryker ignorer (mutation/node/stryker.config.mjs): the message texts of errors.
//
// The adapter protocol compares an error's code, never its message ("message is free
// text", docs/adapter-protocol.md section 2), and the runner's reports only quote it. A
// mutant that changes a message is therefore equivalent by definition: no vector can
// kill it. Ignored here, by where the text stands, not by the mutator class: a string
// literal that is an output ('Miss', 'fire') or an error code ('bad-hash') is compared
// and keeps its mutants.
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

// constructor or function name -> the positions of its message arguments
const MESSAGE_ARGUMENTS = {
  InvalidInput: [1], // new InvalidInput(code, message)
  SetupError: [0], // new SetupError(message): the adapter's own start-up failure
  Error: [0],
  TypeError: [0],
  RangeError: [0],
  badRequest: [1], // badRequest(id, message): the protocol's bad-request error
};

const TEXT = new Set(['StringLiteral', 'TemplateLiteral', 'BinaryExpression']);

function calleeName(node) {
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'MemberExpression' && node.property.type === 'Identifier') return node.property.name;
  return null;
}

function isMessageArgument(path) {
  const parent = path.parentPath;
  if (!parent || !(parent.isNewExpression() || parent.isCallExpression())) return false;
  // own keys only: a call named after an Object.prototype method (bytes.toString('hex'))
  // must not find Object.prototype.toString as its list of positions
  const name = calleeName(parent.node.callee);
  const positions = name !== null && Object.hasOwn(MESSAGE_ARGUMENTS, name) ? MESSAGE_ARGUMENTS[name] : null;
  return Boolean(positions) && positions.includes(parent.node.arguments.indexOf(path.node));
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'error-messages', {
    shouldIgnore(path) {
      if (TEXT.has(path.node.type) && isMessageArgument(path)) {
        return 'an error message: free text the protocol never compares (equivalent by definition)';
      }
      return undefined;
    },
  }),
];
