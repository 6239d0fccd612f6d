// The per-call cancellation that stands in for an AbortController: it must behave as one for the
// listeners the clients add (functions, handleEvent objects, removed ones) and for its reason.
import { describe, expect, it } from "vitest";
import { Cancellation } from "../src/cancel.js";

describe("Cancellation", () => {
  it("tells each listener once, functions and handleEvent objects alike, in the order they were added", () => {
    const cancellation = new Cancellation();
    const heard: string[] = [];
    cancellation.addEventListener("abort", () => heard.push("function"));
    cancellation.addEventListener("abort", { handleEvent: () => heard.push("object") });
    cancellation.abort("client went away");
    cancellation.abort("again");
    expect(heard).toEqual(["function", "object"]);
    expect(cancellation.aborted).toBe(true);
    expect(cancellation.reason).toBe("client went away");
  });

  it("forgets a removed listener and ignores a second add of the same one", () => {
    const cancellation = new Cancellation();
    const heard: string[] = [];
    const kept = () => heard.push("kept");
    const removed = () => heard.push("removed");
    cancellation.addEventListener("abort", kept);
    cancellation.addEventListener("abort", kept);
    cancellation.addEventListener("abort", removed);
    cancellation.removeEventListener("abort", removed);
    cancellation.removeEventListener("abort", () => {});
    cancellation.abort();
    expect(heard).toEqual(["kept"]);
  });

  it("without a reason, aborts with an AbortError as AbortController does", () => {
    const cancellation = new Cancellation();
    const controller = new AbortController();
    expect(cancellation.aborted).toBe(false);
    expect(cancellation.reason).toBeUndefined();
    cancellation.abort();
    controller.abort();
    expect(cancellation.reason).toBeInstanceOf(DOMException);
    expect((cancellation.reason as DOMException).name).toBe((controller.signal.reason as DOMException).name);
    expect((cancellation.reason as DOMException).message).toBe(
      (controller.signal.reason as DOMException).message,
    );
  });

  it("keeps no listener added after the abort", () => {
    const cancellation = new Cancellation();
    cancellation.abort();
    const heard: string[] = [];
    cancellation.addEventListener("abort", () => heard.push("late"));
    cancellation.abort();
    expect(heard).toEqual([]);
  });
});
