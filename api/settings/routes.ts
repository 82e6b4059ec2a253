// Instance settings (issue 6 item 2, decisions §10-§11): admins read and change the alert
// contacts, display currency, self-signup, code-scan folders, business hours, time zone and the
// weekly report's day and hour. Company name, plan and agent limit are shown, never changed here.
import { compile, readJson } from '../../lib/http/body.ts';
import { json, type Route } from '../../lib/http/types.ts';
import { SettingsPatchSchema } from '../../schemas/settings.ts';
import type { ApiContext } from '../context.ts';
import { readSettings, refuseReadOnly, updateSettings } from './update.ts';

const patchBody = compile(SettingsPatchSchema);

export function settingsRoutes(ctx: ApiContext): Route[] {
  const { db, guard, logger } = ctx;
  return [
    {
      method: 'GET',
      pattern: '/api/v1/settings',
      async handler(request) {
        await guard.admin(request);
        return json(200, await readSettings(db), { 'cache-control': 'no-store' });
      },
    },
    {
      method: 'PATCH',
      pattern: '/api/v1/settings',
      async handler(request) {
        const admin = await guard.admin(request);
        const raw = readJson(request);
        refuseReadOnly(raw);
        const { settings, changed } = await updateSettings(db, patchBody.parse(raw));
        logger.info('instance settings changed', { fields: changed, by: admin.userId });
        return json(200, settings, { 'cache-control': 'no-store' });
      },
    },
  ];
}
