export type { OAuthContext } from './context.ts';
export { registerOAuthRoutes } from './routes.ts';
export {
  OAuthState,
  type OAuthStateOptions,
  type SandboxUserProfile,
  type TokenResult,
  type VerifyResult,
} from './state.ts';
export { defaultCredentials, type SandboxCredentials, tokenSignature } from './tokens.ts';
