/**
 * RFC 9728 §3.3: a client MUST check that the `resource` a protected resource metadata document
 * names is the resource it asked about (the URL it reached), and drop the document otherwise, so
 * that no site can send a client's tokens for another. The route manifest (paths.ts) serves
 * `/mcp` and its metadata on every site of the service, but the document and every 401's
 * challenge name one resource, MCP_RESOURCE_URL (the start page's host): an agent pointed at
 * `/mcp` on the apex, `www` or the identity host is sent to another origin's metadata, which a
 * client that follows the spec must refuse, and one that does not is given a token for another
 * host than the one it talks to. Each site that serves the document must be the host it names.
 */
import { PATHS, sitesOf, type Site } from "../../src/paths";
import { testConfig } from "../support/deps";

const config = testConfig();

/** The origin of each Hosting site, as config/defaults `originsFor` makes them. */
function originOf(site: Site): string {
  if (site === "service") return `https://${config.parentDomain}`;
  if (site === "www") return `https://www.${config.parentDomain}`;
  if (site === "id") return new URL(config.idUrl).origin;
  return `https://${site}.${config.parentDomain}`;
}

it("serves /mcp and its metadata only on the host its resource URL names", () => {
  const resourceOrigin = new URL(config.mcpResourceUrl).origin;
  const served = PATHS.mcp.flatMap((route) => sitesOf(route).map((site) => `${route.path} on ${originOf(site)}`));
  const elsewhere = served.filter((where) => !where.endsWith(` on ${resourceOrigin}`));
  expect(elsewhere).toEqual([]);
});
