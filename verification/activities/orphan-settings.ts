/** How the orphan sweep of a worker behaves. */
export interface OrphanSettings {
  /**
   * How long after a create attempt that got no answer the service may still carry it out: its
   * session, landing any time until then, is swept. The sweep keeps looking that long, and a
   * sweep that cannot look for that long gives up visibly. @default 24 hours
   */
  horizonMs: number;
}

/** The default of {@link OrphanSettings.horizonMs}. */
export const DEFAULT_ORPHAN_HORIZON_MS = 24 * 3_600_000;

/** When the sweep looks, and when it gives up: derived from the horizon (plain JSON, for the workflow). */
export interface OrphanSchedule {
  /** The first wait between looks; it doubles while looks find nothing, up to `maxLookEveryMs`. */
  lookEveryMs: number;
  maxLookEveryMs: number;
  /** A sweep whose looks fail for this long gives up, visibly. */
  giveUpAfterMs: number;
}

/** The settings with their defaults. */
export function resolveOrphanSettings(settings: Partial<OrphanSettings> = {}): OrphanSettings {
  return { horizonMs: settings.horizonMs ?? DEFAULT_ORPHAN_HORIZON_MS };
}

const clamp = (value: number, min: number, max: number) => Math.min(Math.max(value, min), max);

/**
 * The schedule for a horizon: looks start about a thousandth of the horizon apart (1 s to a
 * minute) and stretch to a twentieth (up to 15 minutes), so an orphan is found within minutes
 * of landing and a day's horizon costs about a hundred looks; a sweep gives up after failing
 * for a whole horizon (at least 10 s).
 */
export function orphanSchedule(settings: OrphanSettings): OrphanSchedule {
  const lookEveryMs = clamp(Math.round(settings.horizonMs / 1_000), 1_000, 60_000);
  return {
    lookEveryMs,
    maxLookEveryMs: clamp(Math.round(settings.horizonMs / 20), lookEveryMs, 15 * 60_000),
    giveUpAfterMs: Math.max(settings.horizonMs, 10_000),
  };
}
