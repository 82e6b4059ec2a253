// Bearer routes of discovery (decisions §9): start a scan (202, run by the workers tier), read
// one scan's progress and results, list recent scans. Members and admins may start scans: a
// scan only adds DISCOVERED agents and observations, which members may do by hand anyway.
import { compile, pathUuid, queryInteger, readJson } from '../../lib/http/body.ts';
import { notFound } from '../../lib/errors.ts';
import type { Route } from '../../lib/http/types.ts';
import { StartScanBodySchema } from '../../schemas/discovery.ts';
import type { ApiContext } from '../context.ts';
import { findScan, listScans, queueScan } from './scan-rows.ts';

export const SCAN_LIST_LIMIT_DEFAULT = 20;
export const SCAN_LIST_LIMIT_MAX = 100;

const startBody = compile(StartScanBodySchema);

export function discoveryRoutes(ctx: ApiContext): Route[] {
  const { db, guard } = ctx;
  return [
    {
      method: 'POST',
      pattern: '/api/v1/discovery/scan',
      async handler(request) {
        const principal = await guard.user(request);
        const body = readJson(request);
        // `ALL` and `Code` mean what they say: the other enums of the API are upper case.
        if (body && typeof body === 'object' && typeof (body as { scanner?: unknown }).scanner === 'string') {
          (body as { scanner: string }).scanner = (body as { scanner: string }).scanner.toLowerCase();
        }
        const { scanner } = startBody.parse(body);
        const { scan } = await queueScan(db, scanner, principal.userId);
        return { status: 202, headers: { location: `/api/v1/discovery/scans/${scan.id}` }, body: scan };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/discovery/scans/:scan_id',
      async handler(request) {
        await guard.user(request);
        const scan = await findScan(db, pathUuid(request, 'scan_id', 'The scan'));
        if (!scan) throw notFound('The scan');
        return { status: 200, body: scan };
      },
    },
    {
      method: 'GET',
      pattern: '/api/v1/discovery/scans',
      async handler(request) {
        await guard.user(request);
        const limit = queryInteger(request, 'limit', SCAN_LIST_LIMIT_DEFAULT, 1, SCAN_LIST_LIMIT_MAX);
        return { status: 200, body: await listScans(db, limit) };
      },
    },
  ];
}
