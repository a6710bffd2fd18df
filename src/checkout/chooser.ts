import { el } from "./ui.js";
import type { Announced } from "./wallet.js";

/** The wallet chosen in this tab, by EIP-6963 uuid (a reload asks again only if it is gone). */
const CHOICE_KEY = "svc:wallet";

/**
 * With one wallet, that wallet; with several, asks the buyer which (a list of buttons with each
 * wallet's name and icon), never silently the first to announce itself. Null when the buyer closes
 * the list.
 */
export async function chooseWallet(wallets: Announced[]): Promise<Announced | null> {
  if (wallets.length <= 1) return wallets[0] ?? null;
  const remembered = sessionStorage.getItem(CHOICE_KEY);
  const known = wallets.find((w) => w.info.uuid === remembered);
  if (known) return known;
  const chosen = await ask(wallets);
  if (chosen) sessionStorage.setItem(CHOICE_KEY, chosen.info.uuid);
  return chosen;
}

/** Forgets the tab's choice (the "use another wallet" link). */
export function forgetWalletChoice(): void {
  sessionStorage.removeItem(CHOICE_KEY);
}

function ask(wallets: Announced[]): Promise<Announced | null> {
  return new Promise((resolve) => {
    const dialog = el("dialog", { id: "wallet-chooser", "aria-labelledby": "wallet-chooser-title" });
    const finish = (choice: Announced | null) => {
      dialog.close();
      dialog.remove();
      resolve(choice);
    };
    const options = wallets.map((w) => {
      const icon =
        w.info.icon && /^data:image\//.test(w.info.icon)
          ? el("img", { src: w.info.icon, alt: "", width: "28", height: "28" })
          : el("span", { class: "wallet-icon" });
      const b = el("button", { type: "button", class: "wallet-option", "data-rdns": w.info.rdns ?? "" }, icon, el("span", {}, w.info.name));
      b.addEventListener("click", () => finish(w));
      return b;
    });
    const cancel = el("button", { type: "button", class: "secondary", id: "wallet-chooser-cancel" }, "Cancel");
    cancel.addEventListener("click", () => finish(null));
    dialog.addEventListener("cancel", () => finish(null));
    dialog.append(
      el("h2", { id: "wallet-chooser-title" }, "Choose a wallet"),
      el("p", { class: "muted" }, "Several wallets are installed in this browser."),
      ...options,
      cancel,
    );
    document.body.append(dialog);
    dialog.showModal();
  });
}
