export { CallAccounting, type CallSnapshot } from './accounting.ts';
export {
  DEFAULT_REALISM,
  FAULT_KINDS,
  type FaultKind,
  Realism,
  type RealismConfig,
  type ScriptedFault,
} from './realism.ts';
export { createRng, type Rng } from './rng.ts';
export {
  CONTROL_PREFIX,
  createSandboxApp,
  type ErrorFault,
  listen,
  runCall,
  type SandboxAppOptions,
  type SandboxCore,
} from './server.ts';
