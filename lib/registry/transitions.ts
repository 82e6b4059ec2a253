// Review workflow of an agent (decisions §5): DISCOVERED → PENDING_REVIEW → APPROVED, and
// APPROVED → PENDING_REVIEW for a re-review. Only admins approve. Staying in place is no change.
import { AppError } from '../errors.ts';
import type { AgentStatus } from '../../schemas/agents.ts';

const ALLOWED: Record<AgentStatus, readonly AgentStatus[]> = {
  DISCOVERED: ['PENDING_REVIEW'],
  PENDING_REVIEW: ['APPROVED'],
  APPROVED: ['PENDING_REVIEW'],
};

export function isLegalTransition(from: AgentStatus, to: AgentStatus): boolean {
  return from === to || ALLOWED[from].includes(to);
}

/**
 * Throws 403 `admin_required` when a non-admin asks for APPROVED (checked first: a member can
 * never approve, whatever the current status), then 422 `invalid_transition`.
 */
export function checkTransition(from: AgentStatus, to: AgentStatus, canApprove: boolean): void {
  if (to === 'APPROVED' && !canApprove) {
    throw new AppError({ code: 'admin_required', status: 403, detail: 'Only admins may approve an agent.' });
  }
  if (!isLegalTransition(from, to)) {
    const allowed = ALLOWED[from].join(' or ');
    throw new AppError({
      code: 'invalid_transition',
      status: 422,
      detail: `An agent in status ${from} can move to ${allowed}, not ${to}.`,
      errors: [{ path: '/status', message: `cannot change from ${from} to ${to}` }],
    });
  }
}
