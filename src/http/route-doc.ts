import type { TSchema } from 'typebox';
import type { OperationName } from '../domain/operations.ts';

/** A header or query parameter of a route. */
export interface ParamDoc {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

/** OpenAPI facts of a route that its request schema does not say. */
export interface RouteDoc {
  /** The API operation the route runs: which CRMs offer it is added from the provider registry. */
  operation?: OperationName;
  operationId: string;
  summary: string;
  description: string;
  tags: string[];
  /** Success responses by status. Error responses are added from the shared error model. */
  responses: Record<string, { description: string; schema?: TSchema }>;
  /** Request headers the route reads (documented as header parameters). */
  headers?: readonly ParamDoc[];
  /** Query parameters the route reads. */
  query?: readonly ParamDoc[];
  /** Statuses of the shared error model this route can answer (besides 401/403/405/429/500). */
  errors: number[];
  /** Not part of the API document (405 guards, health checks). */
  hidden?: boolean;
  /** Public routes carry no bearer token. */
  public?: boolean;
  /** Admin API: authenticated by an operator API key, not by a connection's API token. */
  operatorKey?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    doc?: RouteDoc;
  }
}
