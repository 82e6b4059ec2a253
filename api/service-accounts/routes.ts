// Admin-only management of service-account tokens (decisions §3): create (the token is in this
// answer and nowhere else, ever), list (never the tokens) and revoke.
import { notFound, validationFailed } from '../../lib/errors.ts';
import { compile, pathUuid, readBody } from '../../lib/http/body.ts';
import { json, type Route } from '../../lib/http/types.ts';
import { createServiceAccount, listServiceAccounts, revokeServiceAccount } from '../../lib/auth/service-accounts.ts';
import { CreateServiceAccountBodySchema } from '../../schemas/service-accounts.ts';
import type { ApiContext } from '../context.ts';

const createBody = compile(CreateServiceAccountBodySchema);

export function serviceAccountRoutes(ctx: ApiContext): Route[] {
  const { db, guard, logger } = ctx;
  return [
    {
      method: 'POST',
      pattern: '/api/v1/service-accounts',
      async handler(request) {
        const admin = await guard.admin(request);
        const body = readBody(request, createBody);
        if (body.name.trim() === '') throw validationFailed([{ path: '/name', message: 'must not be blank' }]);
        const created = await createServiceAccount(db, body.name, admin.userId);
        logger.info('service account created', { service_account_id: created.id, name: created.name, by: admin.userId });
        return json(201, created, { 'cache-control': 'no-store' });
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/service-accounts',
      async handler(request) {
        await guard.admin(request);
        return json(200, await listServiceAccounts(db));
      },
    },
    {
      method: 'DELETE',
      pattern: '/api/v1/service-accounts/:id',
      async handler(request) {
        const admin = await guard.admin(request);
        const id = pathUuid(request, 'id', 'The service account');
        if (!(await revokeServiceAccount(db, id))) throw notFound('The service account');
        logger.info('service account revoked', { service_account_id: id, by: admin.userId });
        return { status: 204 };
      },
    },
  ];
}
