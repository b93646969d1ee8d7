/**
 * Each test file ends once the mail it set going has been sent: a drain still running when jest
 * tears the file's environment down would reach Firestore from a module registry that is gone.
 */
import { inProcessDrainsIdle } from "../../src/adapters/mail-queue";

afterAll(() => inProcessDrainsIdle());
