/** The deployment the pages' unit tests assume: the local stack's. */
export default {
  idUrl: "https://id.example.test",
  allowedOrigins: [
    "https://example.test",
    "https://www.example.test",
    "https://id.example.test",
    "https://startpage.example.test",
    "https://status.example.test",
    "https://calendar.example.test",
    "https://location.example.test",
  ],
  identityToolkit: "http://127.0.0.1:9099/identitytoolkit.googleapis.com/v1",
  apiKey: "test-api-key",
};
