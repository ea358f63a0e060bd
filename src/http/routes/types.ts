import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { RateLimiter } from '../../auth/rate-limit.ts';
import type { ConnectFlowPort } from '../../domain/connect.ts';
import type { IdempotencyService } from '../../jobs/idempotency.ts';
import type { JobReads } from '../../jobs/reads.ts';
import type { JobRunner } from '../../jobs/runner.ts';
import type { OperationDeps } from '../../operations/deps.ts';
import type { TokenVerifier } from '../plugins/auth.ts';

/** A scope with the TypeBox type provider: route schemas type each handler's query, params and body. */
export const typed = (scope: FastifyInstance) => scope.withTypeProvider<TypeBoxTypeProvider>();
export type ApiApp = ReturnType<typeof typed>;

/** The services the API routes use, and nothing else: no route reaches the store behind the layers' back. */
export interface RouteServices {
  auth: TokenVerifier;
  /** The per-token rate limit; null when it is off. */
  rateLimiter: RateLimiter | null;
  operations: OperationDeps;
  jobs: Pick<JobRunner, 'submit' | 'cancel'>;
  jobReads: JobReads;
  idempotency: IdempotencyService;
  connectFlow: ConnectFlowPort;
  /** Largest request body (idempotent pass-through buffers it to replay). */
  bodyLimit: number;
  /** Behind a TLS-terminating proxy: cookies are `Secure` even on plain HTTP. */
  behindTls: boolean;
}
