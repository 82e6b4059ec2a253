// Every HTTP operation the service offers, as the OpenAPI document describes it. A test checks
// that this list and the routes the service registers are the same set.
import { ANALYTICS_OPERATIONS } from './operations-analytics.ts';
import { CORE_OPERATIONS } from './operations-core.ts';
import { INGEST_OPERATIONS } from './operations-ingest.ts';
import { TELEMETRY_OPERATIONS } from '../telemetry/openapi.ts';
import { DISCOVERY_OPERATIONS } from '../discovery/openapi.ts';
import { DASHBOARD_OPERATIONS } from '../dashboard/openapi.ts';
import type { Operation } from './operation-types.ts';

export type { Operation } from './operation-types.ts';

export const OPERATIONS: Operation[] = [...CORE_OPERATIONS, ...INGEST_OPERATIONS, ...ANALYTICS_OPERATIONS, ...TELEMETRY_OPERATIONS, ...DISCOVERY_OPERATIONS, ...DASHBOARD_OPERATIONS];

