// Service accounts: named, revocable tokens for OpenTelemetry exporters (decisions §3).
import { Type, type Static } from '@sinclair/typebox';

export const CreateServiceAccountBodySchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 100 }),
});
export type CreateServiceAccountBody = Static<typeof CreateServiceAccountBodySchema>;

const Timestamp = Type.String({ format: 'date-time' });

export const ServiceAccountSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  /** The token's first characters, to tell tokens apart; never enough to use it. */
  token_prefix: Type.String(),
  created_at: Timestamp,
  last_used_at: Type.Union([Timestamp, Type.Null()]),
  revoked_at: Type.Union([Timestamp, Type.Null()]),
});
export type ServiceAccount = Static<typeof ServiceAccountSchema>;

/** The answer of create: the only time the token is shown. */
export const CreatedServiceAccountSchema = Type.Object({
  id: Type.String({ format: 'uuid' }),
  name: Type.String(),
  token: Type.String({ description: 'aor_sa_ followed by 43 characters; shown once, store it now.' }),
  token_prefix: Type.String(),
  created_at: Timestamp,
});
export type CreatedServiceAccount = Static<typeof CreatedServiceAccountSchema>;
