"""Checks Lectern's MCP server with the official Python SDK (PyPI `mcp`), as a user would:
over Streamable HTTP in both revisions (legacy 2025-11-25 sessions, stateless 2026-07-28)
and over stdio (`lectern mcp`). Run by scripts/mcp-python-check.sh, which makes the server,
the accounts and the keys; this script only talks MCP (and plain HTTP for the 401/403 cases).

Usage: mcp_python_check.py BASE_URL LECTERN_BIN DATA_DIR ALICE_KEY BOB_KEY
"""

import asyncio
import base64
import json
import shutil
import sys

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

OPERATIONS = [
    "users_get", "list_decks", "create_deck", "list_trashed_decks", "get_deck", "update_deck",
    "trash_deck", "recover_deck", "list_slides", "add_slide", "remove_slides", "get_slide",
    "update_slide", "move_slides", "list_deck_shares", "create_deck_share", "revoke_deck_share",
    "create_deck_export", "get_deck_export", "list_team_decks", "get_team_deck",
]
EXTRA = [
    "get_slides", "search_decks", "get_slide_screenshot", "get_authoring_guide",
    "list_revisions", "get_revision", "restore_revision", "undo_last_change",
    "upload_image", "list_media",
]

passed = 0


def check(cond, what):
    global passed
    if not cond:
        raise AssertionError(what)
    passed += 1
    print(f"ok: {what}")


def http_client(key):
    return httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=60)


def client(base, key, mode):
    return Client(streamable_http_client(f"{base}/mcp", http_client=http_client(key)), mode=mode)


def data(result, tool):
    if result.is_error:
        raise AssertionError(f"{tool} failed: {result.content}")
    text = next(c.text for c in result.content if c.type == "text")
    assert json.loads(text) == result.structured_content, f"{tool}: text and structured content differ"
    return result.structured_content


async def tools_and_decks(base, alice, mode):
    async with client(base, alice, mode) as c:
        check(c.server_info.name == "lectern", f"[{mode}] server name is lectern")
        expected = {"legacy": "2025-11-25", "auto": "2026-07-28"}[mode]
        check(c.protocol_version == expected, f"[{mode}] negotiated protocol {c.protocol_version}")
        tools = (await c.list_tools()).tools
        names = {t.name for t in tools}
        check(names == set(OPERATIONS + EXTRA), f"[{mode}] {len(tools)} tools: the 21 operations and {len(EXTRA)} extra")
        for t in tools:
            a = t.annotations
            assert t.input_schema["type"] == "object" and t.output_schema["type"] == "object", t.name
            assert None not in (a.read_only_hint, a.destructive_hint, a.idempotent_hint, a.open_world_hint), t.name
        check(True, f"[{mode}] every tool has input and output schemas and all four hints")

        created = data(await c.call_tool("create_deck", {"title": f"Python {mode}", "slides": [
            {"html": "<section><h1>One</h1></section>", "notes": "first"},
            {"html": "<section><h2>Two</h2></section>"}]}), "create_deck")
        deck = created["data"]["id"]
        one, two = created["data"]["slide_ids"]
        added = data(await c.call_tool("add_slide", {"deck_id": str(deck), "html": "<section><h2>Three</h2></section>",
                                                      "insert_before_slide_id": one}), "add_slide")
        three = added["data"]["id"]
        moved = data(await c.call_tool("move_slides", {"deck_id": deck, "slide_ids": [three],
                                                        "insert_after_slide_id": two}), "move_slides")
        check(moved["data"]["count"] == 1, f"[{mode}] move_slides moved one slide")
        listed = data(await c.call_tool("list_slides", {"deck_id": deck}), "list_slides")
        titles = [s["title"] for s in listed["data"]]
        check(titles == ["One", "Two", "Three"], f"[{mode}] slides in order after add and move: {titles}")

        export = data(await c.call_tool("create_deck_export", {"deck_id": deck, "format": "zip"}), "create_deck_export")
        check(export["data"]["status"] == "pending" and export["meta"]["poll_after_seconds"] >= 1,
              f"[{mode}] export pending with poll_after_seconds")
        status = export
        for _ in range(120):
            status = data(await c.call_tool("get_deck_export", {"deck_id": deck, "id": export["data"]["id"]}), "get_deck_export")
            if status["data"]["status"] != "pending":
                break
            await asyncio.sleep(0.25)
        check(status["data"]["status"] == "completed" and status["data"]["download_url"],
              f"[{mode}] export completed with a download_url")

        missing = await c.call_tool("get_deck", {"id": 999999})
        check(missing.is_error and missing.structured_content is None
              and json.loads(missing.content[0].text) == {"error": "deck not found", "status": 404},
              f"[{mode}] business errors are isError results with the JSON error as text")

        if shutil.which("chromium") or shutil.which("chromium-browser"):
            shot = await c.call_tool("get_slide_screenshot", {"deck_id": deck, "slide_id": one})
            image = next(b for b in shot.content if b.type == "image")
            png = base64.b64decode(image.data)
            check(not shot.is_error and png.startswith(b"\x89PNG\r\n\x1a\n"), f"[{mode}] the slide screenshot is a PNG")
        else:
            print(f"SKIPPED: [{mode}] slide screenshot (Chromium is not installed)")
        return deck


async def team_and_errors(base, alice, bob):
    async with client(base, bob, "auto") as c:
        data(await c.call_tool("create_deck", {"title": "Bob's team deck", "visibility": "team"}), "create_deck")
    async with client(base, alice, "legacy") as c:
        team = data(await c.call_tool("list_team_decks", {}), "list_team_decks")
        owners = {d["title"]: d["owner"] for d in team["data"]}
        check(owners.get("Bob's team deck") == "Bob Builder", "team deck owner is the display name only")

    async with httpx2.AsyncClient() as h:
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        r = await h.post(f"{base}/mcp", json=ping, headers={"Accept": "application/json, text/event-stream"})
        check(r.status_code == 401 and "resource_metadata=" in r.headers.get("www-authenticate", ""),
              "no credential: 401 with resource_metadata")
        check("error" in r.json(), "the 401 body is JSON {error}")
        r = await h.post(f"{base}/mcp", json=ping, headers={"Origin": "https://evil.example",
                                                            "Authorization": f"Bearer {alice}"})
        check(r.status_code == 403, "a foreign Origin: 403")


async def stdio(bin_path, data_dir, alice):
    params = StdioServerParameters(command=bin_path, args=["--data-dir", data_dir, "mcp"],
                                   env={"LECTERN_API_KEY": alice, "RUST_LOG": "warn"})
    async with Client(params, mode="legacy") as c:
        me = data(await c.call_tool("users_get", {}), "users_get")
        check(me["data"]["username"] == "alice", "stdio: users_get acts for the key's account")
        tools = (await c.list_tools()).tools
        check(len(tools) == len(OPERATIONS) + len(EXTRA), "stdio: the same tools")


async def main():
    base, bin_path, data_dir, alice, bob = sys.argv[1:6]
    await tools_and_decks(base, alice, "legacy")
    await tools_and_decks(base, alice, "auto")
    await team_and_errors(base, alice, bob)
    await stdio(bin_path, data_dir, alice)
    print(f"{passed} passed, 0 failed")


if __name__ == "__main__":
    asyncio.run(main())
