// Health, auth, registry and service accounts.
import { Type } from '@sinclair/typebox';
import { AgentSchema, BeaconAnswerSchema, BeaconBodySchema, CreateAgentBodySchema, PatchAgentBodySchema, RegistryStatsSchema } from '../../schemas/agents.ts';
import { ChangePasswordBodySchema, LoginBodySchema, RefreshBodySchema, SignupBodySchema, TokenAnswerSchema } from '../../schemas/auth.ts';
import { SettingsPatchSchema, SettingsSchema } from '../../schemas/settings.ts';
import { CreatedServiceAccountSchema, CreateServiceAccountBodySchema, ServiceAccountSchema } from '../../schemas/service-accounts.ts';
import { BEARER_ERRORS, int, type Operation } from './operation-types.ts';

const enumOf = (values: readonly string[]) => ({ type: 'string', enum: [...values] });

export const CORE_OPERATIONS: Operation[] = [
  { id: 'health', method: 'GET', pattern: '/health', tag: 'health', summary: "Each store's state", auth: 'none', responses: { 200: { description: 'All stores up' }, 503: { description: 'A store is down (Retry-After)' } } },
  { id: 'metrics', method: 'GET', pattern: '/metrics', tag: 'health', summary: 'Prometheus metrics of this process', description: 'Store states, queue depths and Kafka consumer lag; no tenant data.', auth: 'none', responses: { 200: { description: 'Prometheus text format 0.0.4', mediaType: 'text/plain' } } },
  { id: 'openapi', method: 'GET', pattern: '/api/v1/openapi.json', tag: 'health', summary: 'This document', auth: 'none', responses: { 200: { description: 'OpenAPI 3.1' } } },
  { id: 'login', method: 'POST', pattern: '/auth/login', tag: 'auth', summary: 'Log in', description: 'username is the email. A temporary password answers password_change_required: true with a token good only for /auth/change-password.', auth: 'none', body: LoginBodySchema, responses: { 200: { description: 'Tokens', schema: TokenAnswerSchema } }, errors: [400, 401, 403, 422, 429] },
  { id: 'refresh', method: 'POST', pattern: '/auth/refresh', tag: 'auth', summary: 'Rotate the refresh token', description: 'Every refresh rotates; reusing a rotated token revokes its whole family.', auth: 'none', body: RefreshBodySchema, responses: { 200: { description: 'Tokens (login shape)', schema: TokenAnswerSchema } }, errors: [400, 401, 403, 422] },
  { id: 'signup', method: 'POST', pattern: '/auth/signup', tag: 'auth', summary: 'Create a 14-day trial member account', description: 'Only when the operator enabled self-signup (403 signup_disabled otherwise).', auth: 'none', body: SignupBodySchema, responses: { 201: { description: 'Tokens (login shape) and trial_expires_at', schema: TokenAnswerSchema } }, errors: [400, 403, 409, 422] },
  { id: 'changePassword', method: 'POST', pattern: '/auth/change-password', tag: 'auth', summary: 'Change a (temporary) password', auth: 'bearer', body: ChangePasswordBodySchema, responses: { 200: { description: 'Fresh tokens', schema: TokenAnswerSchema } }, errors: [400, 401, 403, 422, 429] },
  {
    id: 'listAgents', method: 'GET', pattern: '/api/v1/agents', tag: 'registry', summary: 'List agents', auth: 'bearer',
    query: [
      { name: 'status', description: 'filter', schema: enumOf(['APPROVED', 'DISCOVERED', 'PENDING_REVIEW']) },
      { name: 'risk_level', description: 'filter', schema: enumOf(['CRITICAL', 'HIGH', 'MEDIUM', 'LOW']) },
      { name: 'framework', description: 'filter (upper-case identifier)', schema: { type: 'string' } },
      { name: 'department', description: 'filter', schema: { type: 'string' } },
      { name: 'no_owner', description: 'true: only agents without owner', schema: { type: 'boolean' } },
      { name: 'search', description: 'name or external_id, case-insensitive', schema: { type: 'string', maxLength: 200 } },
      { name: 'sort_by', description: 'sort key', schema: { ...enumOf(['risk_score', 'name', 'created_at']), default: 'risk_score' } },
      { name: 'sort_dir', description: 'direction', schema: { ...enumOf(['desc', 'asc']), default: 'desc' } },
      { name: 'limit', description: 'page size', schema: int(1, 500, 100) },
    ],
    responses: { 200: { description: 'Agents', schema: Type.Array(AgentSchema) } }, errors: BEARER_ERRORS,
  },
  { id: 'getAgent', method: 'GET', pattern: '/api/v1/agents/:agent_id', tag: 'registry', summary: 'One agent', auth: 'bearer', responses: { 200: { description: 'The agent', schema: AgentSchema } }, errors: BEARER_ERRORS },
  { id: 'createAgent', method: 'POST', pattern: '/api/v1/agents', tag: 'registry', summary: 'Register an agent (PENDING_REVIEW)', auth: 'bearer', body: CreateAgentBodySchema, responses: { 201: { description: 'The created agent', schema: AgentSchema } }, errors: [...BEARER_ERRORS, 409, 415, 422] },
  { id: 'patchAgent', method: 'PATCH', pattern: '/api/v1/agents/:agent_id', tag: 'registry', summary: 'Update an agent; status transitions; approval by admins', auth: 'bearer', body: PatchAgentBodySchema, responses: { 200: { description: 'The updated agent', schema: AgentSchema } }, errors: [...BEARER_ERRORS, 409, 415, 422] },
  { id: 'registryStats', method: 'GET', pattern: '/api/v1/registry/stats', tag: 'registry', summary: 'Registry counts', auth: 'bearer', responses: { 200: { description: 'Counts', schema: RegistryStatsSchema } }, errors: BEARER_ERRORS },
  { id: 'beacon', method: 'POST', pattern: '/api/v1/agents/beacon', tag: 'registry', summary: 'Agent self-registration (public)', description: '201 when it registered the agent (PENDING_REVIEW), 200 when it updated a known one.', auth: 'none', body: BeaconBodySchema, responses: { 200: { description: 'Updated', schema: BeaconAnswerSchema }, 201: { description: 'Registered', schema: BeaconAnswerSchema } }, errors: [400, 403, 413, 415, 422] },
  { id: 'createServiceAccount', method: 'POST', pattern: '/api/v1/service-accounts', tag: 'admin', summary: 'Issue a service-account token (shown once)', auth: 'bearer', body: CreateServiceAccountBodySchema, responses: { 201: { description: 'The account and its token', schema: CreatedServiceAccountSchema } }, errors: [...BEARER_ERRORS, 422] },
  { id: 'listServiceAccounts', method: 'GET', pattern: '/api/v1/service-accounts', tag: 'admin', summary: 'Service accounts (without tokens)', auth: 'bearer', responses: { 200: { description: 'Accounts', schema: Type.Array(ServiceAccountSchema) } }, errors: BEARER_ERRORS },
  { id: 'getSettings', method: 'GET', pattern: '/api/v1/settings', tag: 'admin', summary: 'Instance settings (admins)', auth: 'bearer', responses: { 200: { description: 'Settings', schema: SettingsSchema } }, errors: BEARER_ERRORS },
  { id: 'patchSettings', method: 'PATCH', pattern: '/api/v1/settings', tag: 'admin', summary: 'Change instance settings (admins)', description: 'company_name, plan and agent_limit are set by the operator script: sending them is 422.', auth: 'bearer', body: SettingsPatchSchema, responses: { 200: { description: 'Settings', schema: SettingsSchema } }, errors: [...BEARER_ERRORS, 415, 422] },
  { id: 'revokeServiceAccount', method: 'DELETE', pattern: '/api/v1/service-accounts/:id', tag: 'admin', summary: 'Revoke a service-account token', auth: 'bearer', responses: { 204: { description: 'Revoked' } }, errors: BEARER_ERRORS },
];
