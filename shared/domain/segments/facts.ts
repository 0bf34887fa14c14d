/**
 * What a segment's conditions read: the contact record's fields (the same `contact.*` fields as flows, through
 * `contactRecordFact`), its order totals and its latest email engagement (`contact-stats`). Segments have no trigger,
 * so `event.*`, `custom.*` and the flows' `activity.*_since_trigger` have no meaning here and are refused on save.
 *
 * Time-window facts (`activity.days_since_last_*`) are whole days elapsed, so "in the last 30 days" is `less_than 30`
 * and it flips at a known moment: `nextFlip` tells the membership when to look again (docs/segments.md).
 */

import type { Customer } from '#shared/domain/customers/model.ts';
import type { Facts } from '#shared/domain/flows/conditions.ts';
import { contactRecordFact } from '#shared/domain/flows/facts.ts';
import type { Condition, ConditionGroup } from '#shared/domain/flows/flow.ts';
import { type ContactStats, orderTotals } from './model.ts';

export const DAY_MS = 86_400_000;

/** `contact.*` fields of the contact record (as flows read them). */
const RECORD_FIELDS = [
  'email',
  'phone',
  'customer_id',
  'first_name',
  'last_name',
  'country',
  'country_code',
  'locale',
  'city',
  'created_at',
  'tags',
  'category_tags',
  'email_consent',
  'sms_consent',
];

/** Time-window facts: the time they count from, read off the contact's stats. */
const SINCE: Record<string, (stats: ContactStats | undefined) => number | undefined> = {
  'activity.days_since_last_order': (stats) => orderTotals(stats).lastAt,
  'activity.days_since_last_open': (stats) => stats?.lastOpenAt,
  'activity.days_since_last_click': (stats) => stats?.lastClickAt,
};

/** Every field a segment condition may name (besides `contact.attributes.<path>`). */
export const SEGMENT_FIELDS: readonly string[] = [
  ...RECORD_FIELDS.map((field) => `contact.${field}`),
  'contact.total_spent',
  'contact.orders_placed',
  ...Object.keys(SINCE),
];

export const isSegmentField = (field: string): boolean =>
  SEGMENT_FIELDS.includes(field) || /^contact\.attributes\.[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$/.test(field);

const isGroup = (member: Condition | ConditionGroup): member is ConditionGroup => 'conditions' in member;

/** Every condition of a group, nested groups included, in order. */
export const conditionsOf = (group: ConditionGroup): Condition[] =>
  group.conditions.flatMap((member) => (isGroup(member) ? conditionsOf(member) : [member]));

/** Whole days from `since` to `now` (never negative: an order dated ahead counts as today). */
const daysSince = (since: number | undefined, now: number): number | undefined =>
  since === undefined ? undefined : Math.max(0, Math.floor((now - since) / DAY_MS));

/** The facts of one contact at `now` (epoch ms). A contact the store no longer has reads as absent everywhere. */
export const segmentFacts = (contact: Customer | undefined, stats: ContactStats | undefined, now: number): Facts => {
  return async (field) => {
    if (!contact) return undefined;
    const since = SINCE[field];
    if (since) return daysSince(since(stats), now);
    switch (field) {
      case 'contact.total_spent':
        return orderTotals(stats).total;
      case 'contact.orders_placed':
        return orderTotals(stats).count;
      default: {
        const [root, ...path] = field.split('.');
        return root === 'contact' ? contactRecordFact(contact, path) : undefined;
      }
    }
  };
};

/**
 * The next moment after `now` at which a time-window condition of `groups` may change its answer for this contact: a
 * whole-days value `d` changes at `since + d × day`, so a condition with threshold `v` can flip only at `since + v`
 * or `since + (v + 1)` days (covering `less_than`, `greater_than`, `equals`, `not_equals`). Undefined when none can.
 */
export const nextFlip = (
  groups: readonly ConditionGroup[],
  stats: ContactStats | undefined,
  now: number,
): number | undefined => {
  let next: number | undefined;
  for (const condition of groups.flatMap(conditionsOf)) {
    const since = SINCE[condition.field]?.(stats);
    if (since === undefined || typeof condition.value !== 'number') continue;
    for (const days of [Math.ceil(condition.value), Math.floor(condition.value) + 1]) {
      const at = since + days * DAY_MS;
      if (at > now && (next === undefined || at < next)) next = at;
    }
  }
  return next;
};
