/**
 * The `store/sending_paused` webhook (`announceStanding`): told once when the guard pauses a store's marketing mail
 * and once when the pause ends, with the change's number as its event id, so a process stopped between the emit and
 * its record emits the same event again (one delivery) and never announces a change twice.
 */
import { describe, expect, it } from 'vitest';
import {
  announceStanding,
  type ReputationCounts,
  type StandingAnnouncements,
} from '#shared/domain/email/reputation.ts';

const setup = () => {
  let counts: ReputationCounts = { delivered: 200, bounced: 0, complained: 0 };
  let announced = { paused: false, version: 0 };
  let recordFails = false;
  const emitted: { body: Record<string, unknown>; eventId: string }[] = [];
  const announcements: StandingAnnouncements = {
    last: async () => announced,
    record: async (_, paused, version) => {
      if (recordFails) throw new Error('the process stopped');
      if (announced.version !== version - 1) return false;
      announced = { paused, version };
      return true;
    },
  };
  const deps = {
    reputation: { counts: async () => counts },
    announcements,
    webhooks: {
      emit: async (_: string, __: string, body: Record<string, unknown>, eventId: string) => {
        emitted.push({ body, eventId });
      },
    },
    clock: { now: () => Date.parse('2026-11-28T12:00:00Z') },
  };
  return {
    deps,
    emitted,
    set: (next: Partial<ReputationCounts>) => {
      counts = { ...counts, ...next };
    },
    failRecord: (fails: boolean) => {
      recordFails = fails;
    },
  };
};

describe('announceStanding', () => {
  it('tells the pause once, and its end once', async () => {
    const { deps, emitted, set } = setup();
    expect(await announceStanding(deps, 'st_1')).toBeUndefined();
    set({ bounced: 30 });
    expect(await announceStanding(deps, 'st_1')).toBe('paused');
    expect(await announceStanding(deps, 'st_1')).toBeUndefined();
    set({ bounced: 0 });
    expect(await announceStanding(deps, 'st_1')).toBe('resumed');
    expect(emitted).toEqual([
      {
        eventId: 'sending-standing#1',
        body: {
          store_id: 'st_1',
          paused: true,
          reason: expect.stringContaining('bounce'),
          timestamp: Date.parse('2026-11-28T12:00:00Z') / 1000,
        },
      },
      { eventId: 'sending-standing#2', body: expect.objectContaining({ paused: false, reason: null }) },
    ]);
  });

  it('emits the same event again when the process stopped before recording it, and a warning tells nothing', async () => {
    const { deps, emitted, set, failRecord } = setup();
    set({ bounced: 30 });
    failRecord(true);
    await expect(announceStanding(deps, 'st_1')).rejects.toThrow('the process stopped');
    failRecord(false);
    expect(await announceStanding(deps, 'st_1')).toBe('paused');
    expect(emitted.map((e) => e.eventId)).toEqual(['sending-standing#1', 'sending-standing#1']);
    set({ bounced: 12 });
    // 12 bounces of 212: a warning, not a pause, so the pause ended.
    expect(await announceStanding(deps, 'st_1')).toBe('resumed');
  });
});
