import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { formatDate, isTimeZone } from "./date_format.ts";
import { renderTemplate } from "./template.ts";

// Monday 2026-01-05 23:30:07 UTC: already Tuesday in Tokyo, still Monday in New York.
const T = new Date("2026-01-05T23:30:07.045Z");

describe("formatDate", () => {
  const cases: [string, string, string][] = [
    ["YYYY-MM-DD", "UTC", "2026-01-05"],
    ["YYYY-MM-DD", "Asia/Tokyo", "2026-01-06"],
    ["dddd, MMMM Do YYYY", "UTC", "Monday, January 5th 2026"],
    ["ddd D MMM YY", "Asia/Tokyo", "Tue 6 Jan 26"],
    ["YYYY/MM/YYYY-MM-DD", "UTC", "2026/01/2026-01-05"],
    ["[Week] WW, gggg", "UTC", "Week 02, gggg"],
    ["HH:mm:ss.SSS", "UTC", "23:30:07.045"],
    ["h:mm A", "America/New_York", "6:30 PM"],
    ["Z", "Asia/Kolkata", "+05:30"],
    ["ZZ", "America/New_York", "-0500"],
    ["DDDD Q E d", "UTC", "005 1 1 1"],
  ];
  for (const [format, tz, want] of cases) {
    it(`${format} in ${tz}`, () => assert.equal(formatDate(T, format, tz), want));
  }
  it("numbers ordinals and ISO weeks at year ends correctly", () => {
    assert.equal(formatDate(new Date("2026-01-11T00:00:00Z"), "Do"), "11th");
    assert.equal(formatDate(new Date("2026-01-22T00:00:00Z"), "Do"), "22nd");
    assert.equal(formatDate(new Date("2027-01-01T00:00:00Z"), "W"), "53"); // ISO week 53 of 2026
  });
  it("knows time zones", () => {
    assert.ok(isTimeZone("Europe/Berlin"));
    assert.ok(!isTimeZone("Mars/Olympus"));
    assert.throws(() => formatDate(T, "YYYY", "Mars/Olympus"), RangeError);
  });
});

describe("renderTemplate", () => {
  it("fills title, date and time, with and without formats, and leaves unknown variables", () => {
    const out = renderTemplate(
      "# {{title}}\n{{date}} {{time}} {{ date:dddd }} {{time:HH:mm:ss}} {{DATE:YYYY}} {{author}}",
      { title: "My Note", now: T, timeZone: "Asia/Tokyo" },
    );
    assert.equal(out, "# My Note\n2026-01-06 08:30 Tuesday 08:30:07 2026 {{author}}");
  });
});
