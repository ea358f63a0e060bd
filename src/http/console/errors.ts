// How a failed console request is answered: a page, never JSON, with a text that says what to do.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/index.ts';
import { isCsrfRefusal } from '../plugins/csrf.ts';
import { describe } from '../plugins/validation.ts';
import type { ConsoleKit } from './kit.ts';

function invalidFields(error: FastifyError): string | null {
  if (error.validation === undefined || error.validation.length === 0) return null;
  const fields = error.validation.slice(0, 5).map((e) => {
    const d = describe(e);
    return `${d.path.replace(/^\//, '')} ${d.message}`;
  });
  const where = error.validationContext === 'querystring' ? 'address' : 'form';
  return `The ${where} is invalid: ${fields.join('; ')}. Correct it and try again.`;
}

/** An operator service's message (`password is too short`) as a page says it: `Password is too short.` */
export const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

export const TOKEN_REFUSED = 'The form’s security token is missing or wrong. Try again.';

/** The error page of a console scope, with how it answers a refused form token. */
export function consoleErrorHandler(
  kit: ConsoleKit,
  tokenRefused?: (request: FastifyRequest, reply: FastifyReply) => unknown,
) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (tokenRefused !== undefined && isCsrfRefusal(error)) return tokenRefused(request, reply);
    const apiError = error instanceof ApiError ? error : null;
    // A path id that cannot exist is the same as one that does not.
    const notFound = error.validationContext === 'params';
    const status = notFound ? 404 : (apiError?.status ?? error.statusCode ?? 500);
    if (status >= 500 && apiError === null) request.log.error({ err: error }, 'console page failed');
    if (apiError !== null) reply.headers(apiError.headers);
    const text = notFound
      ? 'No such item here.'
      : (apiError?.message ??
        invalidFields(error) ??
        (status < 500
          ? 'The request could not be read. Go back and try again.'
          : 'Something went wrong; the log has the details.'));
    const title = status === 404 ? 'Not found' : 'That did not work';
    return kit.message(request, reply, status, title, text);
  };
}
