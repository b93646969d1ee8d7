/** The floor: a bare express app answering GET /hello. env: PORT. */
import { requireFromFunctions } from "../lib/functions.ts";

const express = requireFromFunctions("express");
const app = express();
app.get("/hello", (_req: any, res: any) => res.json({ hello: "world" }));
app.listen(Number(process.env.PORT), "127.0.0.1", () => console.log("ready"));
process.on("SIGTERM", () => process.exit(0));
