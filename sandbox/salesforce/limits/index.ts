export { type LimitsContext, limitsDocument, registerLimits } from './routes.ts';
export { type LimitsOptions, LimitsState, limitsOf } from './state.ts';
