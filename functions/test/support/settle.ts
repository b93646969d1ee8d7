/**
 * Each test ends once the mail it set going has been sent: its drains read its own clock, and one
 * still running in the next test (whose clock may stand hours away) would judge that test's mail
 * in flight by it, as a lapsed claim or out of time. Each file ends the same way: a drain still
 * running when jest tears the file's environment down would reach Firestore from a module registry
 * that is gone.
 */
import { allTasksIdle } from "./task-queue";

afterEach(() => allTasksIdle());
afterAll(() => allTasksIdle());
