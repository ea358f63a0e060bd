export { HttpClient, type HttpClientOptions } from './http-client.ts';
export {
  type AttemptFailure,
  DEFAULT_RETRY_POLICY,
  decide,
  parseRetryAfter,
  type RetryDecision,
  type RetryPolicy,
} from './retry.ts';
export {
  type CallEvent,
  type CallHook,
  type HttpMethod,
  headerValue,
  OutboundNetworkError,
  type OutboundRequest,
  type OutboundResponse,
  parseJson,
} from './types.ts';
