import { html, nothing } from 'lit';
import type { Notice } from '../calls.ts';

/** What the notice needs of the element: the notice shown, which "Dismiss" clears. */
export interface NoticeHost {
  notice: Notice | undefined;
}

/** A refused or failed call, in plain words, with "Try again" when trying again can help. */
export function renderNotice(host: NoticeHost) {
  const notice = host.notice;
  return html`<div part="notice" class=${notice ? 'notice' : ''} role="alert">
    ${
      notice
        ? html`<p id="notice" tabindex="-1">${notice.message}</p>
            <div class="actions">
              ${
                notice.retry
                  ? html`<button type="button" part="button primary-button" class="primary" @click=${notice.retry}>
                      Try again
                    </button>`
                  : nothing
              }
              <button type="button" part="button" @click=${() => {
                host.notice = undefined;
              }}>
                Dismiss
              </button>
            </div>`
        : nothing
    }
  </div>`;
}
