import type { FastifyInstance, FastifyReply } from 'fastify';
import { baseUrl, type OAuthContext } from './context.ts';

// The partner SOAP API's `login()` and `logout()` (`POST /services/Soap/u/{version}`), the session
// calls clients such as jsforce and the Data Loader still make; no other SOAP call is served.
// Answers follow the partner WSDL: `loginResponse/result` with `serverUrl`, `sessionId`, `userId`
// and `userInfo`, and a SOAP fault (HTTP 500) with Salesforce's exception code on failure.

const ENVELOPE_OPEN =
  '<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns="urn:partner.soap.sforce.com" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:sf="urn:fault.partner.soap.sforce.com"><soapenv:Body>';
const ENVELOPE_CLOSE = '</soapenv:Body></soapenv:Envelope>';

const xmlEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const xmlUnescape = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');

/** The text of the first element named `name` (any namespace prefix), unescaped. */
function element(xml: string, name: string): string | undefined {
  const m = new RegExp(`<(?:\\w+:)?${name}(?:\\s[^>]*)?>([^<]*)</(?:\\w+:)?${name}>`).exec(xml);
  return m?.[1] === undefined ? undefined : xmlUnescape(m[1]);
}

function send(reply: FastifyReply, status: number, body: string) {
  return reply
    .code(status)
    .header('content-type', 'text/xml;charset=UTF-8')
    .send(`${ENVELOPE_OPEN}${body}${ENVELOPE_CLOSE}`);
}

function fault(reply: FastifyReply, code: string, message: string) {
  const text = xmlEscape(`${code}: ${message}`);
  // The detail element is named after its type, as the partner WSDL's faults are.
  const kind = code === 'INVALID_LOGIN' ? 'LoginFault' : 'UnexpectedErrorFault';
  return send(
    reply,
    500,
    `<soapenv:Fault><faultcode>sf:${code}</faultcode><faultstring>${text}</faultstring><detail><sf:${kind} xsi:type="sf:${kind}"><sf:exceptionCode>${code}</sf:exceptionCode><sf:exceptionMessage>${xmlEscape(message)}</sf:exceptionMessage></sf:${kind}></detail></soapenv:Fault>`,
  );
}

export function registerSoapRoutes(app: FastifyInstance, ctx: OAuthContext): void {
  app.register(async (scope) => {
    for (const type of ['text/xml', 'application/soap+xml']) {
      scope.addContentTypeParser(type, { parseAs: 'string' }, (_req, body, done) => done(null, body));
    }
    scope.post<{ Params: { version: string } }>('/services/Soap/u/:version', async (request, reply) => {
      const xml = typeof request.body === 'string' ? request.body : '';
      const { oauth } = ctx;
      if (/<(?:\w+:)?login[\s>]/.test(xml)) {
        const result = oauth.passwordLogin(element(xml, 'username'), element(xml, 'password'));
        if (!result.ok) {
          return fault(
            reply,
            'INVALID_LOGIN',
            'Invalid username, password, security token; or user locked out.',
          );
        }
        const base = baseUrl(request);
        const org15 = oauth.orgId.slice(0, 15);
        const v = request.params.version;
        const u = oauth.user;
        return send(
          reply,
          200,
          `<loginResponse><result><metadataServerUrl>${base}/services/Soap/m/${v}/${org15}</metadataServerUrl><passwordExpired>false</passwordExpired><sandbox>false</sandbox><serverUrl>${base}/services/Soap/u/${v}/${org15}</serverUrl><sessionId>${xmlEscape(result.accessToken)}</sessionId><userId>${result.userId}</userId><userInfo><organizationId>${oauth.orgId}</organizationId><userEmail>${xmlEscape(u.email)}</userEmail><userFullName>${xmlEscape(`${u.firstName} ${u.lastName}`)}</userFullName><userId>${result.userId}</userId><userName>${xmlEscape(u.username)}</userName></userInfo></result></loginResponse>`,
        );
      }
      if (/<(?:\w+:)?logout[\s/>]/.test(xml)) {
        const session = element(xml, 'sessionId');
        if (session === undefined || !oauth.verifyAccessToken(session).ok) {
          return fault(
            reply,
            'INVALID_SESSION_ID',
            'Invalid Session ID found in SessionHeader: Illegal Session',
          );
        }
        oauth.revoke(session);
        return send(reply, 200, '<logoutResponse/>');
      }
      return fault(
        reply,
        'UNKNOWN_EXCEPTION',
        'The sandbox serves the SOAP API login() and logout() calls only.',
      );
    });
  });
}
