import { isPartnerOnly } from '#lib/access/index.ts';
import { accountIdOf } from '#lib/bookings/index.ts';
import { listAccounts } from '#lib/config/index.ts';
import type { RouteHandler } from '#lib/http/group-handler.ts';
import { noParameters, parseInput } from '#lib/http/validate.ts';
import type { Db } from '#lib/kernel/storage/database.ts';

/**
 * GET account (staff): every staff account as an array, or a partner's own credential only its own;
 * credentials are separate records, never shown.
 */
export const createListAccounts =
  (db: Db): RouteHandler =>
  async ({ input, caller }) => {
    parseInput(noParameters, input);
    const accounts = (await listAccounts(db))
      .filter((account) => !isPartnerOnly(caller) || account.account_id === accountIdOf(caller))
      .sort((a, b) => a.account_id - b.account_id);
    return {
      body: {
        account: accounts.map((account) => ({
          account_id: account.account_id,
          first_name: account.first_name,
          last_name: account.last_name,
          email: account.email,
          mobile_phone: account.mobile_phone,
          nickname: account.nickname,
          login_id: account.login_id,
          enabled: account.enabled ? 1 : 0,
          partner: account.partner ? 1 : 0,
          date_created: account.date_created,
          date_last_login: account.date_last_login,
          ip_last_login: account.ip_last_login,
        })),
      },
      request: { records: accounts.length },
    };
  };
