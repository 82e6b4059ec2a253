// Bodies and answers of /auth/*. Field rules that need code (password policy, email shape)
// are checked by the handlers so that their messages name the rule.
import { Type, type Static } from '@sinclair/typebox';

// Generous upper bounds: they only stop absurd bodies from reaching the password hash.
const Email = Type.String({ minLength: 3, maxLength: 254 });
const AnyPassword = Type.String({ minLength: 1, maxLength: 1000 });

export const LoginBodySchema = Type.Object({
  /** The account's email. */
  username: Type.String({ minLength: 1, maxLength: 320 }),
  password: AnyPassword,
});
export type LoginBody = Static<typeof LoginBodySchema>;

export const RefreshBodySchema = Type.Object({
  refresh_token: Type.String({ minLength: 1, maxLength: 200 }),
});
export type RefreshBody = Static<typeof RefreshBodySchema>;

export const SignupBodySchema = Type.Object({
  email: Email,
  password: AnyPassword,
  name: Type.String({ minLength: 1, maxLength: 200 }),
});
export type SignupBody = Static<typeof SignupBodySchema>;

export const ChangePasswordBodySchema = Type.Object({
  current_password: AnyPassword,
  new_password: AnyPassword,
});
export type ChangePasswordBody = Static<typeof ChangePasswordBodySchema>;

/** The answer of login, refresh, signup and change-password. */
export const TokenAnswerSchema = Type.Object({
  access_token: Type.String(),
  refresh_token: Type.String(),
  token_type: Type.Literal('bearer'),
  expires_in: Type.Integer({ description: 'Seconds until the access token expires (3600).' }),
  /** Present (true) when the password is temporary: the access token then opens only change-password. */
  password_change_required: Type.Optional(Type.Literal(true)),
  /** Signup only: when the trial account expires. */
  trial_expires_at: Type.Optional(Type.String({ format: 'date-time' })),
});
export type TokenAnswer = Static<typeof TokenAnswerSchema>;
