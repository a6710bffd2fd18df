/** `npm run build:checkout`: bundles the hosted checkout into dist/checkout (part of `npm run build`). */
import { buildCheckout } from "../dev/checkout/build.js";

const dir = await buildCheckout();
console.error(`checkout built in ${dir}`);
