// What a delivery claim reads and hands to the worker, shared by both backends' claim statements: the claimable
// condition, the lease margin, and the shapes of a leased delivery with its event.
import type { EventType } from './lifecycle.js';
import type { Subscription } from './subscriptions.js';

export interface StoredEvent {
  sid: string;
  type: EventType;
  accountId: number;
  callSid: string | null;
  occurredAt: string;
  data: Record<string, unknown>;
}

export interface ClaimedDelivery {
  id: number;
  sid: string;
  /** 1 for the first attempt; a redelivery after a crash repeats the number of the attempt that was lost. */
  attempt: number;
  event: StoredEvent;
  subscription: Subscription;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'exhausted';

/** Where a delivery goes after an attempt: finished (delivered, exhausted) or pending until nextAttemptAt. */
export interface AttemptNext { status: DeliveryStatus; nextAttemptAt: number | null }

export interface FinishedAttempt { id: number; record: AttemptRecord; next: AttemptNext }

/** A worker's attempts in flight per subscription id, and how many one subscription may have. */
export interface SubscriptionSlots { active: ReadonlyMap<number, number>; perSubscription: number }

export interface AttemptRecord {
  attempt: number;
  startedAt: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/** How long past its own timeout a claimed attempt stays reserved; after that, another worker may redeliver. */
export const LEASE_MARGIN_MS = 2_000;

export interface EventRow { sid: string; account_id: number; event_type: EventType; call_sid: string | null; occurred_at: string; data: string }
/** A delivery with its event's columns (event_sid: the event's own sid). */
export interface LeasedRow extends Omit<EventRow, 'sid'> { id: number; sid: string; attempt_count: number; subscription_id: number; event_sid: string }

export const toEvent = (r: EventRow): StoredEvent => ({
  sid: r.sid, type: r.event_type, accountId: r.account_id, callSid: r.call_sid, occurredAt: r.occurred_at,
  data: JSON.parse(r.data) as Record<string, unknown>,
});

/** `n` placeholders for an IN list. */
export const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/** Pending, due and not leased; `?`: now, now. */
export const CLAIMABLE = `d.status = 'pending' AND d.next_attempt_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until <= ?)
  AND EXISTS (SELECT 1 FROM webhook_subscriptions s WHERE s.id = d.subscription_id AND s.status = 'active')`;

