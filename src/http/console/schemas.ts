// What each console route reads. Forms send empty fields as '', so a filter's pattern takes '' as
// "not set". Unknown fields are let through (`reloaded`, the connect flow's `tab`).
import { type TProperties, Type } from 'typebox';
import { CSRF_FIELD } from '../plugins/csrf.ts';

const ID = '[A-Za-z0-9_-]{1,80}';
const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

export const IdParams = Type.Object({ id: Type.String({ pattern: `^${ID}$` }) });
export const AssetParams = Type.Object({ name: Type.String({ maxLength: 100 }) });

const form = <T extends TProperties>(fields: T) => Type.Object({ [CSRF_FIELD]: Type.String(), ...fields });

/** A form with no field besides its token: sign-out, re-connect, remove, revoke. */
export const TokenOnlyForm = form({});

// Passwords have no length of their own: the form's 64 KiB limit bounds them.
const signInFields = { email: text(1000), password: Type.Optional(Type.String()) };
export const SignInForm = form(signInFields);
export const SetupForm = form({ setup_code: text(200), ...signInFields });

const connectFields = {
  provider: Type.String({ maxLength: 100 }),
  label: text(200),
  login_host: text(300),
};
export const ConnectForm = form(connectFields);
export const LinkForm = form({ ...connectFields, ttl_hours: text(100) });

const tokenFields = { name: text(1000), expires_in_days: text(100) };
/** A connection's own token form: the connection is the page's, not a field. */
export const ConnectionTokenForm = form(tokenFields);
export const TokenForm = form({ connection_id: Type.String({ maxLength: 100 }), ...tokenFields });

/** The notice after a connect flow; ids that do not look like connection ids show no notice. */
export const ConnectionsQuery = Type.Object({
  connected: text(200),
  reconnected: text(200),
  same_account_as: text(200),
  welcome: text(10),
});

export const RequestsQuery = Type.Object({
  status: Type.Optional(Type.String({ pattern: '^([2-5]xx)?$' })),
  request_id: Type.Optional(Type.String({ pattern: '^[A-Za-z0-9._:-]{0,128}$' })),
  connection_id: Type.Optional(Type.String({ pattern: `^(${ID})?$` })),
  token_id: Type.Optional(Type.String({ pattern: `^(${ID})?$` })),
  before: Type.Optional(Type.String({ pattern: '^(\\d{4}-\\d{2}-\\d{2}T[0-9:.]{8,12}Z)?$' })),
});

/** A session: the 64 hex characters the store keys it by. */
const sid = Type.String({ pattern: '^[0-9a-f]{64}$' });
export const SessionParams = Type.Object({ sid });
export const OperatorSessionParams = Type.Object({ id: IdParams.properties.id, sid });

export const AddOperatorForm = form({
  email: Type.String({ maxLength: 1000 }),
  password: Type.String(),
  can_manage: text(10),
});

export const ChangePasswordForm = form({
  current_password: Type.String(),
  new_password: Type.String(),
  username: text(1000),
});

export const ResetPasswordForm = form({ new_password: Type.String() });
