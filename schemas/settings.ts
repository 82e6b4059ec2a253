// Instance settings over HTTP: `GET /api/v1/settings` answers Settings, `PATCH` takes a partial
// SettingsPatch (admins only). company_name, plan and agent_limit are the operator's (set by
// `npm run setup`) and read-only here.
import { Type, type Static } from '@sinclair/typebox';

export const MAX_ALERT_CONTACTS = 3;
export const MAX_CODE_SCAN_FOLDERS = 20;
export const READ_ONLY_SETTINGS = ['company_name', 'plan', 'agent_limit'] as const;

// One @, no spaces or control characters, a dotted domain of letters, digits and hyphens with a
// top-level part of 2+ letters (RFC 5321 lengths: 64 for the local part, 254 overall).
export const EMAIL_PATTERN = "^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]{2,63}$";
const Email = Type.String({ maxLength: 254, pattern: EMAIL_PATTERN, description: 'An email address.' });
const Weekday = Type.Integer({ minimum: 1, maximum: 7, description: 'ISO weekday: 1 = Monday ... 7 = Sunday.' });

export const SettingsSchema = Type.Object(
  {
    company_name: Type.String(),
    plan: Type.Union([Type.Literal('professional'), Type.Literal('enterprise')]),
    agent_limit: Type.Integer(),
    display_currency: Type.String({ description: 'ISO 4217 code.' }),
    usd_rate: Type.Number({ description: 'Units of display_currency per USD.' }),
    alert_contacts: Type.Array(Type.String(), { maxItems: MAX_ALERT_CONTACTS }),
    signup_enabled: Type.Boolean(),
    code_scan_folders: Type.Array(Type.String()),
    business_hours_start: Type.Integer({ description: 'Local hour business starts, 0-23.' }),
    business_hours_end: Type.Integer({ description: 'Local hour business ends (exclusive), 1-24.' }),
    business_days: Type.Array(Weekday),
    time_zone: Type.String({ description: 'IANA time zone, e.g. Europe/Paris.' }),
    report_weekday: Weekday,
    report_hour: Type.Integer({ description: 'Local hour of the weekly report, 0-23.' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Settings' },
);
export type Settings = Static<typeof SettingsSchema>;

export const SettingsPatchSchema = Type.Object(
  {
    display_currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3, description: 'ISO 4217; send usd_rate with it unless it is USD.' })),
    usd_rate: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1e9 })),
    alert_contacts: Type.Optional(Type.Array(Email, { maxItems: MAX_ALERT_CONTACTS })),
    signup_enabled: Type.Optional(Type.Boolean()),
    code_scan_folders: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 1024, pattern: '^/[^\\u0000]*$', description: 'Absolute path on the workers host.' }), { maxItems: MAX_CODE_SCAN_FOLDERS }),
    ),
    business_hours_start: Type.Optional(Type.Integer({ minimum: 0, maximum: 23 })),
    business_hours_end: Type.Optional(Type.Integer({ minimum: 1, maximum: 24 })),
    business_days: Type.Optional(Type.Array(Weekday, { minItems: 1, maxItems: 7 })),
    time_zone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    report_weekday: Type.Optional(Weekday),
    report_hour: Type.Optional(Type.Integer({ minimum: 0, maximum: 23 })),
  },
  { additionalProperties: false, $id: 'SettingsPatch', minProperties: 1 },
);
export type SettingsPatch = Static<typeof SettingsPatchSchema>;
