// The discovery operations as the OpenAPI document describes them (api/openapi/operations.ts
// spreads this list beside the others).
import { Type } from '@sinclair/typebox';
import { ScanSchema, StartScanBodySchema } from '../../schemas/discovery.ts';
import { BEARER_ERRORS, int, type Operation } from '../openapi/operation-types.ts';
import { SCAN_LIST_LIMIT_DEFAULT, SCAN_LIST_LIMIT_MAX } from './routes.ts';

export const DISCOVERY_OPERATIONS: Operation[] = [
  {
    id: 'startDiscoveryScan',
    method: 'POST',
    pattern: '/api/v1/discovery/scan',
    tag: 'discovery',
    summary: 'Start a discovery scan',
    description:
      'scanner: telemetry, ledger, code, endpoints or all (case-insensitive). Answers 202 with the queued scan and a Location ' +
      'header; the workers run it. While a scan of the same scanner is still queued, that scan is answered instead of a new one.',
    auth: 'bearer',
    body: StartScanBodySchema,
    responses: { 202: { description: 'The scan, queued', schema: ScanSchema } },
    errors: [...BEARER_ERRORS, 415, 422],
  },
  {
    id: 'getDiscoveryScan',
    method: 'GET',
    pattern: '/api/v1/discovery/scans/:scan_id',
    tag: 'discovery',
    summary: 'Progress and results of one scan',
    auth: 'bearer',
    responses: { 200: { description: 'The scan', schema: ScanSchema } },
    errors: BEARER_ERRORS,
  },
  {
    id: 'listDiscoveryScans',
    method: 'GET',
    pattern: '/api/v1/discovery/scans',
    tag: 'discovery',
    summary: 'Recent scans, newest first',
    auth: 'bearer',
    query: [{ name: 'limit', description: 'how many', schema: int(1, SCAN_LIST_LIMIT_MAX, SCAN_LIST_LIMIT_DEFAULT) }],
    responses: { 200: { description: 'Scans', schema: Type.Array(ScanSchema) } },
    errors: BEARER_ERRORS,
  },
];
