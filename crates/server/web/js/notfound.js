// The page any address the site does not have gets (with status 404): translated, with the header and a way on.

import { boot } from "./page.js";

await boot();
