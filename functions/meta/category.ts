import { isListedFor } from '#lib/catalog/index.ts';
import { listCategories, listItems } from '#lib/config/index.ts';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import { noParameters, parseInput } from '#lib/http/validate.ts';
import type { Db } from '#lib/kernel/storage/database.ts';

/**
 * GET category: enabled categories keyed by id; `qty` counts the enabled items the caller would see in
 * the item list, and `unit` is their unit when they share one (otherwise empty).
 */
export const createListCategories =
  (db: Db): RouteHandler =>
  async ({ input, caller }) => {
    parseInput(noParameters, input);
    const [categories, items] = await Promise.all([listCategories(db), listItems(db)]);
    const visible = items.filter((item) => item.enabled && isListedFor(caller, item.visibility));
    const enabled = categories.filter((category) => category.enabled).sort((a, b) => a.pos - b.pos);
    const category = Object.fromEntries(
      enabled.map((entry) => {
        const units = new Set(
          visible.filter((item) => item.category_id === entry.category_id).map((item) => item.unit),
        );
        const qty = visible.filter((item) => item.category_id === entry.category_id).length;
        return [
          String(entry.category_id),
          {
            category_id: entry.category_id,
            name: entry.name,
            description: entry.description,
            pos: entry.pos,
            image: entry.image,
            qty,
            unit: units.size === 1 ? [...units][0] : '',
          },
        ];
      }),
    );
    return { body: { category }, request: { records: enabled.length } };
  };
