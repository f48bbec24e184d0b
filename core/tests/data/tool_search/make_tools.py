"""Write tools.json: the 500 tool definitions the tool search quality test ranks.

Run from the repository root: ``python core/tests/data/tool_search/make_tools.py``.
The output is deterministic (no randomness, no clock). ``--capture`` first refreshes
``captured.json`` from the running servers (it needs the repository's venv: toolplug
with its plugins, mcp-server-time and the mcp SDK).

Where the tools come from, in order:

1. Real tools, captured in ``captured.json`` from the running servers: toolplug's own
   built-ins (``toolplug tools --format mcp``; the workspace path in file_editor's
   description replaced by a neutral one), mcp-server-time, and the demo and library MCP
   servers of plugins/mcp/tests/servers. They keep their own names (the built-ins) or
   get the ``server__`` prefix toolplug-mcp gives a server's tools.
2. Real tools of the MCP reference servers and the first GitHub server (everything,
   filesystem, git, fetch, memory, sequential thinking, github, brave search, puppeteer,
   slack, postgres, sqlite, google maps), recorded below as facts: their names and
   parameter names as those servers publish them, the descriptions shortened in our
   own words.
3. Generated tools of made-up but realistic services (issue trackers, mail, calendars,
   payments, clouds, ...): list/get/create/update/delete per kind of thing, with
   descriptions varied by a fixed rule, plus hand-written ones, 500 in all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
TOTAL = 500


def schema(params: dict[str, str], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """An MCP input schema: string parameters unless the name says otherwise."""
    properties: dict[str, Any] = {}
    for name, description in params.items():
        kind = "string"
        if name in {"limit", "page", "per_page", "max_length", "start_index", "count", "amount"}:
            kind = "integer"
        elif name.startswith(("is_", "include_", "dry_run", "raw", "force", "draft")):
            kind = "boolean"
        properties[name] = {"type": kind, "description": description}
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = list(required)
    return out


def tool(name: str, description: str, params: dict[str, str] | None = None) -> dict[str, Any]:
    params = params or {}
    required = tuple(p for p in params if p not in {"limit", "page", "per_page"})[:2]
    return {"name": name, "description": description, "inputSchema": schema(params, required)}


# -- 2. the reference servers' tools: names and parameter names as published ----------

P = "Path of the file"
REFERENCE: dict[str, list[dict[str, Any]]] = {
    "everything": [
        tool("echo", "Returns the message it is given.", {"message": "Text to send back"}),
        tool("add", "Sums two numbers.", {"a": "First number", "b": "Second number"}),
        tool(
            "longRunningOperation",
            "Runs a long operation that reports progress notifications while it works.",
            {"duration": "Seconds the operation lasts", "steps": "How many progress steps"},
        ),
        tool(
            "printEnv",
            "Prints the server's environment variables, for debugging configuration.",
            {},
        ),
        tool(
            "sampleLLM",
            "Asks the client's language model for a completion through MCP sampling.",
            {"prompt": "Prompt to send to the model", "maxTokens": "Most tokens to generate"},
        ),
        tool("getTinyImage", "Returns a very small sample image.", {}),
        tool(
            "annotatedMessage",
            "Shows how content annotations carry priority and audience metadata.",
            {
                "messageType": "Kind of message: error, success or debug",
                "includeImage": "Add an image",
            },
        ),
        tool(
            "getResourceReference",
            "Returns a reference to one of the server's resources for the client to read.",
            {"resourceId": "Number of the resource, 1 to 100"},
        ),
    ],
    "filesystem": [
        tool(
            "read_text_file",
            "Reads a whole text file from disk; head or tail return only the first or last lines.",
            {"path": P, "head": "First N lines only", "tail": "Last N lines only"},
        ),
        tool(
            "read_media_file",
            "Reads an image or audio file and returns it base64 encoded with its MIME type.",
            {"path": P},
        ),
        tool(
            "read_multiple_files",
            "Reads several files in one call; a file that fails does not stop the others.",
            {"paths": "Paths of the files"},
        ),
        tool(
            "write_file",
            "Creates a file or replaces an existing file's content completely.",
            {"path": P, "content": "Text to write"},
        ),
        tool(
            "edit_file",
            "Edits a text file by replacing exact text sequences and returns a git-style diff.",
            {"path": P, "edits": "Replacements: oldText and newText", "dryRun": "Preview only"},
        ),
        tool(
            "create_directory",
            "Makes a directory, with any missing parents; succeeds silently if it exists.",
            {"path": "Directory to create"},
        ),
        tool(
            "list_directory",
            "Lists the entries of a folder, each marked [FILE] or [DIR].",
            {"path": "Directory to list"},
        ),
        tool(
            "list_directory_with_sizes",
            "Lists a folder's entries with the size of each file, sortable by name or size.",
            {"path": "Directory to list", "sortBy": "name or size"},
        ),
        tool(
            "directory_tree",
            "Returns a recursive JSON tree of the files and folders below a path.",
            {"path": "Root of the tree"},
        ),
        tool(
            "move_file",
            "Moves or renames a file or directory; fails if the destination exists.",
            {"source": "Current path", "destination": "New path"},
        ),
        tool(
            "search_files",
            "Recursively finds files and directories whose names match a pattern.",
            {
                "path": "Where to start",
                "pattern": "Name pattern",
                "excludePatterns": "Patterns to skip",
            },
        ),
        tool(
            "get_file_info",
            "Returns a file's metadata: size, creation and modification times, permissions, type.",
            {"path": P},
        ),
        tool(
            "list_allowed_directories",
            "Returns the directories this server is allowed to access.",
            {},
        ),
    ],
    "git": [
        tool("git_status", "Shows the working tree status.", {"repo_path": "Repository path"}),
        tool(
            "git_diff_unstaged",
            "Shows changes in the working directory not yet staged.",
            {"repo_path": "Repository path", "context_lines": "Lines of context"},
        ),
        tool(
            "git_diff_staged",
            "Shows the changes staged for the next commit.",
            {"repo_path": "Repository path", "context_lines": "Lines of context"},
        ),
        tool(
            "git_diff",
            "Shows the differences between the working tree and a branch or commit.",
            {"repo_path": "Repository path", "target": "Branch or commit to compare with"},
        ),
        tool(
            "git_commit",
            "Records the staged changes in the repository.",
            {"repo_path": "Repository path", "message": "Commit message"},
        ),
        tool(
            "git_add",
            "Adds file contents to the staging area.",
            {"repo_path": "Repository path", "files": "Files to stage"},
        ),
        tool("git_reset", "Unstages everything that is staged.", {"repo_path": "Repository path"}),
        tool(
            "git_log",
            "Shows the commit history, optionally between two dates.",
            {
                "repo_path": "Repository path",
                "max_count": "How many commits",
                "start_timestamp": "From",
                "end_timestamp": "Until",
            },
        ),
        tool(
            "git_create_branch",
            "Creates a new branch, from a given base branch if one is named.",
            {
                "repo_path": "Repository path",
                "branch_name": "New branch",
                "base_branch": "Start point",
            },
        ),
        tool(
            "git_checkout",
            "Switches to another branch.",
            {"repo_path": "Repository path", "branch_name": "Branch to switch to"},
        ),
        tool(
            "git_show",
            "Shows the contents and metadata of a commit.",
            {"repo_path": "Repository path", "revision": "Commit to show"},
        ),
        tool(
            "git_init",
            "Initializes an empty git repository in a directory.",
            {"repo_path": "Directory"},
        ),
        tool(
            "git_branch",
            "Lists local, remote or all branches, optionally those containing a commit.",
            {
                "repo_path": "Repository path",
                "branch_type": "local, remote or all",
                "contains": "Commit SHA",
            },
        ),
    ],
    "fetch": [
        tool(
            "fetch",
            "Fetches a URL from the internet and returns its content, HTML simplified to markdown.",
            {
                "url": "URL to fetch",
                "max_length": "Most characters to return",
                "start_index": "Where to start",
                "raw": "Return raw HTML",
            },
        ),
    ],
    "memory": [
        tool(
            "create_entities",
            "Adds new entities to the knowledge graph.",
            {"entities": "Entities with name, type and observations"},
        ),
        tool(
            "create_relations",
            "Adds relations between entities, written in active voice.",
            {"relations": "from, to and relationType"},
        ),
        tool(
            "add_observations",
            "Adds observations to existing entities in the knowledge graph.",
            {"observations": "entityName and contents"},
        ),
        tool(
            "delete_entities",
            "Removes entities and their relations from the knowledge graph.",
            {"entityNames": "Names to remove"},
        ),
        tool(
            "delete_observations",
            "Removes given observations from entities.",
            {"deletions": "entityName and observations"},
        ),
        tool(
            "delete_relations",
            "Removes relations from the knowledge graph.",
            {"relations": "Relations to remove"},
        ),
        tool("read_graph", "Returns the whole knowledge graph.", {}),
        tool(
            "search_nodes",
            "Finds nodes in the knowledge graph whose names, types or observations match a query.",
            {"query": "Search text"},
        ),
        tool(
            "open_nodes", "Returns the named nodes of the knowledge graph.", {"names": "Node names"}
        ),
    ],
    "sequentialthinking": [
        tool(
            "sequentialthinking",
            "Works through a problem step by step in revisable thoughts, branching and"
            " backtracking as understanding grows.",
            {
                "thought": "The current thinking step",
                "nextThoughtNeeded": "Whether another step follows",
                "thoughtNumber": "Step number",
                "totalThoughts": "Estimated steps",
            },
        ),
    ],
    "github": [
        tool(
            "create_or_update_file",
            "Creates or updates one file in a GitHub repository.",
            {
                "owner": "Owner",
                "repo": "Repository",
                "path": P,
                "content": "New content",
                "message": "Commit message",
                "branch": "Branch",
                "sha": "SHA of the file replaced",
            },
        ),
        tool(
            "search_repositories",
            "Searches GitHub for repositories.",
            {"query": "Search query", "page": "Page", "perPage": "Results per page"},
        ),
        tool(
            "create_repository",
            "Creates a new GitHub repository in your account.",
            {
                "name": "Repository name",
                "description": "Description",
                "private": "Private or public",
                "autoInit": "Start with a README",
            },
        ),
        tool(
            "get_file_contents",
            "Gets the contents of a file or a directory listing from a GitHub repository.",
            {"owner": "Owner", "repo": "Repository", "path": P, "branch": "Branch"},
        ),
        tool(
            "push_files",
            "Pushes several files to a GitHub repository in a single commit.",
            {
                "owner": "Owner",
                "repo": "Repository",
                "branch": "Branch",
                "files": "Paths and contents",
                "message": "Commit message",
            },
        ),
        tool(
            "create_issue",
            "Creates a new issue in a GitHub repository.",
            {
                "owner": "Owner",
                "repo": "Repository",
                "title": "Title",
                "body": "Body",
                "assignees": "Assignees",
                "labels": "Labels",
                "milestone": "Milestone",
            },
        ),
        tool(
            "create_pull_request",
            "Creates a new pull request in a GitHub repository.",
            {
                "owner": "Owner",
                "repo": "Repository",
                "title": "Title",
                "body": "Description",
                "head": "Branch with the changes",
                "base": "Branch to merge into",
                "draft": "Draft",
            },
        ),
        tool(
            "fork_repository",
            "Forks a GitHub repository to your account or an organization.",
            {"owner": "Owner", "repo": "Repository", "organization": "Organization to fork to"},
        ),
        tool(
            "create_branch",
            "Creates a new branch in a GitHub repository.",
            {
                "owner": "Owner",
                "repo": "Repository",
                "branch": "New branch",
                "from_branch": "Source branch",
            },
        ),
        tool(
            "list_commits",
            "Gets the list of commits of a branch in a GitHub repository.",
            {
                "owner": "Owner",
                "repo": "Repository",
                "sha": "Branch or SHA",
                "page": "Page",
                "perPage": "Per page",
            },
        ),
        tool(
            "list_issues",
            "Lists issues in a GitHub repository, filtered by state, labels or date.",
            {
                "owner": "Owner",
                "repo": "Repository",
                "state": "open, closed or all",
                "labels": "Labels",
                "sort": "Sort field",
                "since": "Updated since",
            },
        ),
        tool(
            "update_issue",
            "Updates an existing issue in a GitHub repository.",
            {
                "owner": "Owner",
                "repo": "Repository",
                "issue_number": "Issue number",
                "title": "Title",
                "body": "Body",
                "state": "open or closed",
                "labels": "Labels",
            },
        ),
        tool(
            "add_issue_comment",
            "Adds a comment to an existing issue.",
            {
                "owner": "Owner",
                "repo": "Repository",
                "issue_number": "Issue number",
                "body": "Comment text",
            },
        ),
        tool(
            "search_code",
            "Searches for code across GitHub repositories.",
            {"q": "Search query", "order": "asc or desc", "page": "Page", "per_page": "Per page"},
        ),
        tool(
            "search_issues",
            "Searches for issues and pull requests across GitHub repositories.",
            {"q": "Search query", "sort": "Sort field", "order": "asc or desc"},
        ),
        tool(
            "search_users",
            "Searches for users on GitHub.",
            {"q": "Search query", "sort": "Sort field", "order": "asc or desc"},
        ),
        tool(
            "get_issue",
            "Gets the details of one issue in a GitHub repository.",
            {"owner": "Owner", "repo": "Repository", "issue_number": "Issue number"},
        ),
        tool(
            "get_pull_request",
            "Gets the details of one pull request.",
            {"owner": "Owner", "repo": "Repository", "pull_number": "Pull request number"},
        ),
        tool(
            "list_pull_requests",
            "Lists and filters a repository's pull requests.",
            {
                "owner": "Owner",
                "repo": "Repository",
                "state": "open, closed or all",
                "head": "Head branch",
                "base": "Base branch",
            },
        ),
        tool(
            "create_pull_request_review",
            "Creates a review on a pull request: approve, request changes or comment.",
            {
                "owner": "Owner",
                "repo": "Repository",
                "pull_number": "Pull request number",
                "body": "Review text",
                "event": "APPROVE, REQUEST_CHANGES or COMMENT",
                "comments": "Line comments",
            },
        ),
        tool(
            "merge_pull_request",
            "Merges a pull request.",
            {
                "owner": "Owner",
                "repo": "Repository",
                "pull_number": "Pull request number",
                "commit_title": "Title",
                "merge_method": "merge, squash or rebase",
            },
        ),
        tool(
            "get_pull_request_files",
            "Gets the list of files changed in a pull request.",
            {"owner": "Owner", "repo": "Repository", "pull_number": "Pull request number"},
        ),
        tool(
            "get_pull_request_status",
            "Gets the combined status of all status checks for a pull request.",
            {"owner": "Owner", "repo": "Repository", "pull_number": "Pull request number"},
        ),
        tool(
            "update_pull_request_branch",
            "Updates a pull request branch with the latest changes from its base branch.",
            {
                "owner": "Owner",
                "repo": "Repository",
                "pull_number": "Pull request number",
                "expected_head_sha": "Expected head SHA",
            },
        ),
        tool(
            "get_pull_request_comments",
            "Gets the review comments on a pull request.",
            {"owner": "Owner", "repo": "Repository", "pull_number": "Pull request number"},
        ),
        tool(
            "get_pull_request_reviews",
            "Gets the reviews on a pull request.",
            {"owner": "Owner", "repo": "Repository", "pull_number": "Pull request number"},
        ),
    ],
    "brave": [
        tool(
            "brave_web_search",
            "Searches the web with the Brave Search API: news, articles and general"
            " queries, with pagination.",
            {
                "query": "Search query",
                "count": "Results, at most 20",
                "offset": "Pagination offset",
            },
        ),
        tool(
            "brave_local_search",
            "Searches for local businesses and places (restaurants, services) with"
            " addresses, ratings and hours.",
            {"query": "Local search query", "count": "Results"},
        ),
    ],
    "puppeteer": [
        tool("puppeteer_navigate", "Navigates the browser to a URL.", {"url": "URL to open"}),
        tool(
            "puppeteer_screenshot",
            "Takes a screenshot of the current page or of one element.",
            {
                "name": "Name of the screenshot",
                "selector": "CSS selector of an element",
                "width": "Width",
                "height": "Height",
            },
        ),
        tool(
            "puppeteer_click",
            "Clicks an element on the page.",
            {"selector": "CSS selector of the element"},
        ),
        tool(
            "puppeteer_fill",
            "Fills out an input field.",
            {"selector": "CSS selector of the input", "value": "Value to type"},
        ),
        tool(
            "puppeteer_select",
            "Selects an option in a select element.",
            {"selector": "CSS selector of the select", "value": "Value to choose"},
        ),
        tool(
            "puppeteer_hover",
            "Hovers the mouse over an element.",
            {"selector": "CSS selector of the element"},
        ),
        tool(
            "puppeteer_evaluate",
            "Executes JavaScript in the browser console.",
            {"script": "JavaScript code"},
        ),
    ],
    "slack": [
        tool(
            "slack_list_channels",
            "Lists the public channels of the workspace.",
            {"limit": "Most channels", "cursor": "Pagination cursor"},
        ),
        tool(
            "slack_post_message",
            "Posts a new message to a Slack channel.",
            {"channel_id": "Channel ID", "text": "Message text"},
        ),
        tool(
            "slack_reply_to_thread",
            "Replies to a message thread in Slack.",
            {
                "channel_id": "Channel ID",
                "thread_ts": "Timestamp of the parent message",
                "text": "Reply text",
            },
        ),
        tool(
            "slack_add_reaction",
            "Adds an emoji reaction to a message.",
            {
                "channel_id": "Channel ID",
                "timestamp": "Message timestamp",
                "reaction": "Emoji name",
            },
        ),
        tool(
            "slack_get_channel_history",
            "Gets the recent messages of a channel.",
            {"channel_id": "Channel ID", "limit": "Most messages"},
        ),
        tool(
            "slack_get_thread_replies",
            "Gets all replies in a message thread.",
            {"channel_id": "Channel ID", "thread_ts": "Timestamp of the parent message"},
        ),
        tool(
            "slack_get_users",
            "Gets the users of the workspace with their basic profiles.",
            {"cursor": "Pagination cursor", "limit": "Most users"},
        ),
        tool("slack_get_user_profile", "Gets a user's detailed profile.", {"user_id": "User ID"}),
    ],
    "postgres": [
        tool(
            "query", "Runs a read-only SQL query on the PostgreSQL database.", {"sql": "SQL to run"}
        ),
    ],
    "sqlite": [
        tool(
            "read_query",
            "Runs a SELECT query on the SQLite database.",
            {"query": "SELECT statement"},
        ),
        tool(
            "write_query",
            "Runs an INSERT, UPDATE or DELETE query on the SQLite database.",
            {"query": "SQL statement"},
        ),
        tool(
            "create_table",
            "Creates a new table in the SQLite database.",
            {"query": "CREATE TABLE statement"},
        ),
        tool("list_tables", "Lists all tables in the SQLite database.", {}),
        tool("describe_table", "Returns the schema of a table.", {"table_name": "Table"}),
        tool(
            "append_insight",
            "Adds a business insight to the memo.",
            {"insight": "Insight found in the data"},
        ),
    ],
    "maps": [
        tool("maps_geocode", "Turns an address into coordinates.", {"address": "Address"}),
        tool(
            "maps_reverse_geocode",
            "Turns coordinates into an address.",
            {"latitude": "Latitude", "longitude": "Longitude"},
        ),
        tool(
            "maps_search_places",
            "Searches for places by text query.",
            {
                "query": "Search text",
                "location": "Center of the search",
                "radius": "Radius in meters",
            },
        ),
        tool(
            "maps_place_details",
            "Gets detailed information about a place.",
            {"place_id": "Place ID"},
        ),
        tool(
            "maps_distance_matrix",
            "Calculates travel distances and durations between origins and destinations.",
            {
                "origins": "Origins",
                "destinations": "Destinations",
                "mode": "driving, walking, bicycling or transit",
            },
        ),
        tool(
            "maps_elevation",
            "Gets the elevation of locations on the earth.",
            {"locations": "Latitude and longitude pairs"},
        ),
        tool(
            "maps_directions",
            "Gets directions between two points.",
            {
                "origin": "Start",
                "destination": "End",
                "mode": "driving, walking, bicycling or transit",
            },
        ),
    ],
}


# -- 3. generated services --------------------------------------------------------------
#
# Each service: (prefix, product, [(thing, things, parameters)], extra hand-written tools).
# Each thing gets list/get/create/update/delete tools; descriptions rotate between a
# few phrasings so that no two services read word for word alike.

Thing = tuple[str, str, dict[str, str]]
SERVICES: list[tuple[str, str, list[Thing], list[dict[str, Any]]]] = [
    (
        "jira",
        "Jira",
        [
            (
                "issue",
                "issues",
                {
                    "project_key": "Project key",
                    "summary": "Summary",
                    "issue_type": "Bug, Task or Story",
                },
            ),
            (
                "sprint",
                "sprints",
                {"board_id": "Board", "name": "Sprint name", "goal": "Sprint goal"},
            ),
        ],
        [
            tool(
                "jira__transition_issue",
                "Moves a Jira issue to another workflow status, such as In Progress or Done.",
                {"issue_key": "Issue key", "transition": "Target status"},
            ),
            tool(
                "jira__search_issues_jql",
                "Finds Jira issues with a JQL query.",
                {"jql": "JQL query", "limit": "Most results"},
            ),
            tool(
                "jira__log_work",
                "Logs time spent on a Jira issue as a worklog entry.",
                {"issue_key": "Issue key", "time_spent": "Duration such as 2h 30m"},
            ),
        ],
    ),
    (
        "linear",
        "Linear",
        [
            ("issue", "issues", {"team_id": "Team", "title": "Title", "priority": "0 to 4"}),
            (
                "project",
                "projects",
                {"team_id": "Team", "name": "Name", "target_date": "Target date"},
            ),
        ],
        [
            tool(
                "linear__assign_issue",
                "Assigns a Linear issue to a teammate.",
                {"issue_id": "Issue", "assignee_id": "Teammate"},
            ),
        ],
    ),
    (
        "gitlab",
        "GitLab",
        [
            (
                "merge_request",
                "merge requests",
                {
                    "project_id": "Project",
                    "source_branch": "Source branch",
                    "target_branch": "Target branch",
                },
            ),
            ("pipeline", "pipelines", {"project_id": "Project", "ref": "Branch or tag"}),
        ],
        [
            tool(
                "gitlab__retry_job",
                "Retries a failed CI job in a GitLab pipeline.",
                {"project_id": "Project", "job_id": "Job"},
            ),
            tool(
                "gitlab__get_job_log",
                "Gets the console output (trace) of a GitLab CI job.",
                {"project_id": "Project", "job_id": "Job"},
            ),
        ],
    ),
    (
        "notion",
        "Notion",
        [
            (
                "page",
                "pages",
                {
                    "parent_id": "Parent page or database",
                    "title": "Title",
                    "content": "Blocks in markdown",
                },
            ),
            (
                "database",
                "databases",
                {"parent_id": "Parent page", "title": "Title", "properties": "Column definitions"},
            ),
        ],
        [
            tool(
                "notion__query_database",
                "Filters and sorts the rows of a Notion database.",
                {"database_id": "Database", "filter": "Filter", "sorts": "Sort order"},
            ),
            tool(
                "notion__append_blocks",
                "Appends paragraphs, headings or to-dos to the end of a Notion page.",
                {"page_id": "Page", "children": "Blocks"},
            ),
        ],
    ),
    (
        "gmail",
        "Gmail",
        [
            ("draft", "drafts", {"to": "Recipients", "subject": "Subject", "body": "Body"}),
            ("label", "labels", {"name": "Label name", "color": "Color"}),
        ],
        [
            tool(
                "gmail__send_email",
                "Sends an email from the user's Gmail account.",
                {"to": "Recipients", "subject": "Subject", "body": "Body", "cc": "Copy to"},
            ),
            tool(
                "gmail__search_messages",
                "Searches the mailbox with Gmail search operators like from: or has:attachment.",
                {"query": "Gmail query", "limit": "Most messages"},
            ),
            tool(
                "gmail__read_message",
                "Reads one email with its headers, body and attachment names.",
                {"message_id": "Message"},
            ),
            tool(
                "gmail__archive_message",
                "Archives an email, removing it from the inbox.",
                {"message_id": "Message"},
            ),
        ],
    ),
    (
        "calendar",
        "Google Calendar",
        [
            (
                "event",
                "events",
                {
                    "calendar_id": "Calendar",
                    "summary": "Title",
                    "start": "Start time",
                    "end": "End time",
                    "attendees": "Guests",
                },
            ),
        ],
        [
            tool(
                "calendar__find_free_slots",
                "Finds times when all the given people are free for a meeting.",
                {
                    "attendees": "People",
                    "duration_minutes": "Length",
                    "window_start": "Earliest",
                    "window_end": "Latest",
                },
            ),
            tool(
                "calendar__respond_to_invitation",
                "Accepts, declines or tentatively accepts a meeting invitation.",
                {"event_id": "Event", "response": "accepted, declined or tentative"},
            ),
        ],
    ),
    (
        "stripe",
        "Stripe",
        [
            ("customer", "customers", {"email": "Email", "name": "Name"}),
            (
                "invoice",
                "invoices",
                {"customer_id": "Customer", "amount": "Amount in cents", "currency": "Currency"},
            ),
            ("subscription", "subscriptions", {"customer_id": "Customer", "price_id": "Price"}),
        ],
        [
            tool(
                "stripe__create_refund",
                "Refunds a charge in full or in part.",
                {"payment_intent": "Payment", "amount": "Amount in cents"},
            ),
            tool("stripe__get_balance", "Gets the account's available and pending balance.", {}),
            tool(
                "stripe__create_payment_link",
                "Creates a shareable checkout link for a product price.",
                {"price_id": "Price", "quantity": "Quantity"},
            ),
        ],
    ),
    (
        "docker",
        "Docker",
        [
            (
                "container",
                "containers",
                {"image": "Image", "name": "Container name", "ports": "Port mappings"},
            ),
            ("volume", "volumes", {"name": "Volume name", "driver": "Driver"}),
        ],
        [
            tool(
                "docker__container_logs",
                "Streams or returns the stdout and stderr logs of a container.",
                {"container": "Container", "tail": "Last N lines"},
            ),
            tool(
                "docker__build_image",
                "Builds an image from a Dockerfile and a build context.",
                {
                    "context_path": "Build context",
                    "tag": "Image tag",
                    "dockerfile": "Dockerfile path",
                },
            ),
            tool(
                "docker__pull_image",
                "Downloads an image from a registry.",
                {"image": "Image reference"},
            ),
            tool(
                "docker__exec",
                "Runs a command inside a running container.",
                {"container": "Container", "command": "Command"},
            ),
        ],
    ),
    (
        "k8s",
        "Kubernetes",
        [
            (
                "deployment",
                "deployments",
                {
                    "namespace": "Namespace",
                    "name": "Name",
                    "image": "Container image",
                    "replicas": "Replicas",
                },
            ),
            ("pod", "pods", {"namespace": "Namespace", "name": "Name", "label_selector": "Labels"}),
        ],
        [
            tool(
                "k8s__scale_deployment",
                "Changes the number of replicas of a deployment.",
                {"namespace": "Namespace", "name": "Deployment", "replicas": "Replica count"},
            ),
            tool(
                "k8s__pod_logs",
                "Returns the logs of a pod's container.",
                {"namespace": "Namespace", "pod": "Pod", "container": "Container"},
            ),
            tool(
                "k8s__rollout_restart",
                "Restarts every pod of a deployment with a rolling update.",
                {"namespace": "Namespace", "name": "Deployment"},
            ),
            tool(
                "k8s__apply_manifest",
                "Applies a YAML manifest to the cluster, creating or updating its resources.",
                {"manifest": "YAML"},
            ),
        ],
    ),
    (
        "s3",
        "Amazon S3",
        [
            ("bucket", "buckets", {"bucket": "Bucket name", "region": "Region"}),
            ("object", "objects", {"bucket": "Bucket", "key": "Object key", "content": "Body"}),
        ],
        [
            tool(
                "s3__presign_url",
                "Creates a time-limited URL that lets anyone download an object.",
                {"bucket": "Bucket", "key": "Object key", "expires_in": "Seconds"},
            ),
            tool(
                "s3__copy_object",
                "Copies an object to another key or bucket.",
                {"source": "Source bucket/key", "destination": "Destination bucket/key"},
            ),
        ],
    ),
    (
        "weather",
        "OpenWeather",
        [],
        [
            tool(
                "weather__current",
                "Gets the current weather conditions for a city: temperature, wind, humidity.",
                {"city": "City", "units": "metric or imperial"},
            ),
            tool(
                "weather__forecast",
                "Gets the weather forecast for the next days, in three-hour steps.",
                {"city": "City", "days": "Days ahead"},
            ),
            tool(
                "weather__air_quality",
                "Gets the air quality index and pollutant levels at a location.",
                {"latitude": "Latitude", "longitude": "Longitude"},
            ),
            tool(
                "weather__alerts",
                "Lists active severe weather warnings for a region.",
                {"region": "Region or state"},
            ),
        ],
    ),
    (
        "spotify",
        "Spotify",
        [
            (
                "playlist",
                "playlists",
                {"name": "Name", "description": "Description", "public": "Public"},
            ),
        ],
        [
            tool(
                "spotify__play",
                "Starts or resumes playback of a track, album or playlist.",
                {"uri": "Spotify URI", "device_id": "Device"},
            ),
            tool("spotify__pause", "Pauses playback.", {"device_id": "Device"}),
            tool("spotify__skip_next", "Skips to the next track.", {"device_id": "Device"}),
            tool(
                "spotify__search_tracks",
                "Searches the catalogue for songs by title or artist.",
                {"query": "Query", "limit": "Most results"},
            ),
            tool(
                "spotify__add_to_queue",
                "Adds a song to the end of the playback queue.",
                {"uri": "Track URI"},
            ),
        ],
    ),
    (
        "todoist",
        "Todoist",
        [
            (
                "task",
                "tasks",
                {
                    "content": "Task text",
                    "due_string": "Due date in words",
                    "project_id": "Project",
                },
            ),
            ("project", "projects", {"name": "Name", "color": "Color"}),
        ],
        [
            tool("todoist__complete_task", "Marks a to-do as done.", {"task_id": "Task"}),
        ],
    ),
    (
        "trello",
        "Trello",
        [
            (
                "card",
                "cards",
                {"list_id": "List", "name": "Title", "desc": "Description", "due": "Due date"},
            ),
            ("board", "boards", {"name": "Name", "organization": "Workspace"}),
        ],
        [
            tool(
                "trello__move_card",
                "Moves a card to another list on the board.",
                {"card_id": "Card", "list_id": "Destination list"},
            ),
        ],
    ),
    (
        "confluence",
        "Confluence",
        [
            (
                "page",
                "pages",
                {"space_key": "Space", "title": "Title", "body": "Content in storage format"},
            ),
        ],
        [
            tool(
                "confluence__search",
                "Searches wiki pages and blog posts with CQL.",
                {"cql": "CQL query", "limit": "Most results"},
            ),
        ],
    ),
    (
        "hubspot",
        "HubSpot",
        [
            (
                "contact",
                "contacts",
                {"email": "Email", "firstname": "First name", "lastname": "Last name"},
            ),
            (
                "deal",
                "deals",
                {"dealname": "Name", "amount": "Amount", "dealstage": "Pipeline stage"},
            ),
        ],
        [],
    ),
    (
        "zendesk",
        "Zendesk",
        [
            (
                "ticket",
                "tickets",
                {
                    "subject": "Subject",
                    "comment": "First comment",
                    "priority": "low, normal, high or urgent",
                    "requester": "Requester email",
                },
            ),
        ],
        [
            tool(
                "zendesk__add_ticket_comment",
                "Adds a public reply or internal note to a support ticket.",
                {"ticket_id": "Ticket", "body": "Text", "public": "Visible to the customer"},
            ),
        ],
    ),
    (
        "twilio",
        "Twilio",
        [],
        [
            tool(
                "twilio__send_sms",
                "Sends a text message to a phone number.",
                {"to": "Phone number", "body": "Message", "from_number": "Sender number"},
            ),
            tool(
                "twilio__make_call",
                "Places an outbound phone call that plays a message.",
                {"to": "Phone number", "twiml": "What to say"},
            ),
            tool(
                "twilio__list_messages",
                "Lists sent and received text messages.",
                {"to": "Filter by recipient", "limit": "Most messages"},
            ),
            tool(
                "twilio__lookup_phone_number",
                "Looks up a phone number's carrier and line type.",
                {"phone_number": "Number"},
            ),
        ],
    ),
    (
        "datadog",
        "Datadog",
        [
            (
                "monitor",
                "monitors",
                {"name": "Name", "query": "Metric query", "message": "Notification text"},
            ),
            ("dashboard", "dashboards", {"title": "Title", "widgets": "Widgets"}),
        ],
        [
            tool(
                "datadog__query_metrics",
                "Queries time series of a metric over a time range.",
                {"query": "Metric query", "from_ts": "Start", "to_ts": "End"},
            ),
            tool(
                "datadog__search_logs",
                "Searches ingested logs with a query and time range.",
                {"query": "Log query", "from_ts": "Start", "to_ts": "End"},
            ),
        ],
    ),
    (
        "pagerduty",
        "PagerDuty",
        [
            (
                "incident",
                "incidents",
                {"service_id": "Service", "title": "Title", "urgency": "high or low"},
            ),
        ],
        [
            tool(
                "pagerduty__acknowledge_incident",
                "Acknowledges an incident so escalation stops.",
                {"incident_id": "Incident"},
            ),
            tool(
                "pagerduty__resolve_incident", "Resolves an incident.", {"incident_id": "Incident"}
            ),
            tool(
                "pagerduty__who_is_on_call",
                "Lists who is on call now for each escalation policy.",
                {"schedule_id": "Schedule"},
            ),
        ],
    ),
    (
        "vercel",
        "Vercel",
        [
            (
                "deployment",
                "deployments",
                {"project": "Project", "target": "production or preview", "git_ref": "Git ref"},
            ),
        ],
        [
            tool(
                "vercel__set_env_var",
                "Sets an environment variable of a Vercel project.",
                {"project": "Project", "key": "Name", "value": "Value", "target": "Environments"},
            ),
            tool(
                "vercel__get_build_logs",
                "Returns the build output of a deployment.",
                {"deployment_id": "Deployment"},
            ),
        ],
    ),
    (
        "cloudflare",
        "Cloudflare",
        [
            (
                "dns_record",
                "DNS records",
                {
                    "zone_id": "Zone",
                    "type": "A, AAAA, CNAME, TXT or MX",
                    "name": "Record name",
                    "content": "Value",
                },
            ),
        ],
        [
            tool(
                "cloudflare__purge_cache",
                "Purges cached files from the CDN, everything or by URL.",
                {"zone_id": "Zone", "files": "URLs to purge"},
            ),
            tool(
                "cloudflare__kv_put",
                "Writes a value to a Workers KV namespace.",
                {"namespace_id": "Namespace", "key": "Key", "value": "Value"},
            ),
        ],
    ),
    (
        "figma",
        "Figma",
        [],
        [
            tool(
                "figma__get_file",
                "Returns a design file's document tree: pages, frames and layers.",
                {"file_key": "File key"},
            ),
            tool(
                "figma__export_images",
                "Renders frames or nodes of a design as PNG, SVG or PDF.",
                {"file_key": "File key", "node_ids": "Nodes", "format": "png, svg or pdf"},
            ),
            tool(
                "figma__get_comments",
                "Lists the comments left on a design file.",
                {"file_key": "File key"},
            ),
        ],
    ),
    (
        "discord",
        "Discord",
        [],
        [
            tool(
                "discord__send_message",
                "Sends a message to a Discord channel.",
                {"channel_id": "Channel", "content": "Text"},
            ),
            tool(
                "discord__read_messages",
                "Reads the latest messages of a Discord channel.",
                {"channel_id": "Channel", "limit": "Most messages"},
            ),
            tool(
                "discord__create_thread",
                "Starts a thread from a message in a Discord channel.",
                {"channel_id": "Channel", "message_id": "Message", "name": "Thread name"},
            ),
        ],
    ),
    (
        "youtube",
        "YouTube",
        [],
        [
            tool(
                "youtube__get_transcript",
                "Gets the captions of a video as text with timestamps.",
                {"video_id": "Video", "language": "Language"},
            ),
            tool(
                "youtube__search_videos",
                "Searches YouTube for videos.",
                {"query": "Query", "limit": "Most results"},
            ),
            tool(
                "youtube__video_details",
                "Gets a video's title, channel, duration and view count.",
                {"video_id": "Video"},
            ),
        ],
    ),
    (
        "arxiv",
        "arXiv",
        [],
        [
            tool(
                "arxiv__search_papers",
                "Searches scientific preprints by keyword, author or category.",
                {"query": "Query", "max_results": "Most papers"},
            ),
            tool(
                "arxiv__download_paper",
                "Downloads a paper's PDF and extracts its text.",
                {"paper_id": "arXiv id"},
            ),
        ],
    ),
    (
        "wikipedia",
        "Wikipedia",
        [],
        [
            tool(
                "wikipedia__search",
                "Searches encyclopedia articles by title and text.",
                {"query": "Query", "language": "Wiki language"},
            ),
            tool(
                "wikipedia__get_article",
                "Returns the text of an encyclopedia article.",
                {"title": "Article title", "language": "Wiki language"},
            ),
            tool(
                "wikipedia__get_summary",
                "Returns the first paragraph of an encyclopedia article.",
                {"title": "Article title"},
            ),
        ],
    ),
    (
        "translate",
        "DeepL",
        [],
        [
            tool(
                "translate__translate_text",
                "Translates text into another language.",
                {
                    "text": "Text",
                    "target_lang": "Target language",
                    "source_lang": "Source language",
                },
            ),
            tool(
                "translate__detect_language",
                "Detects which language a text is written in.",
                {"text": "Text"},
            ),
            tool("translate__list_languages", "Lists the languages translation supports.", {}),
        ],
    ),
    (
        "finance",
        "Market data",
        [],
        [
            tool(
                "finance__stock_quote",
                "Gets the latest price and daily change of a stock ticker.",
                {"symbol": "Ticker symbol"},
            ),
            tool(
                "finance__historical_prices",
                "Gets daily open, high, low and close prices of a stock.",
                {"symbol": "Ticker", "start": "From", "end": "Until"},
            ),
            tool(
                "finance__convert_currency",
                "Converts an amount between currencies at today's exchange rate.",
                {"amount": "Amount", "from_currency": "From", "to_currency": "To"},
            ),
            tool(
                "finance__crypto_price",
                "Gets the current price of a cryptocurrency such as bitcoin.",
                {"coin": "Coin id", "vs_currency": "Quote currency"},
            ),
            tool(
                "finance__company_financials",
                "Gets a listed company's income statement and balance sheet.",
                {"symbol": "Ticker", "period": "annual or quarterly"},
            ),
        ],
    ),
    (
        "news",
        "News API",
        [],
        [
            tool(
                "news__top_headlines",
                "Gets today's top headlines by country or category.",
                {"country": "Country", "category": "Category"},
            ),
            tool(
                "news__search_articles",
                "Searches news articles from thousands of sources.",
                {"query": "Query", "from_date": "From", "language": "Language"},
            ),
        ],
    ),
    (
        "pdf",
        "PDF",
        [],
        [
            tool(
                "pdf__extract_text",
                "Extracts the text of a PDF document, page by page.",
                {"path": "PDF file", "pages": "Page range"},
            ),
            tool(
                "pdf__merge",
                "Combines several PDF documents into one.",
                {"paths": "PDF files", "output": "Output file"},
            ),
            tool(
                "pdf__fill_form",
                "Fills the form fields of a PDF.",
                {"path": "PDF file", "fields": "Field values", "output": "Output file"},
            ),
        ],
    ),
    (
        "image",
        "Images",
        [],
        [
            tool(
                "image__resize",
                "Resizes an image to a width and height.",
                {"path": "Image file", "width": "Width", "height": "Height"},
            ),
            tool(
                "image__ocr",
                "Recognizes the printed or handwritten text in an image.",
                {"path": "Image file", "language": "Language"},
            ),
            tool(
                "image__generate",
                "Generates a picture from a text prompt with a diffusion model.",
                {"prompt": "What to draw", "size": "Size"},
            ),
            tool(
                "image__remove_background",
                "Cuts the subject out of a photo, leaving a transparent background.",
                {"path": "Image file"},
            ),
        ],
    ),
    (
        "audio",
        "Speech",
        [],
        [
            tool(
                "audio__transcribe",
                "Transcribes speech in an audio recording to text.",
                {"path": "Audio file", "language": "Language"},
            ),
            tool(
                "audio__text_to_speech",
                "Reads text aloud into an audio file with a chosen voice.",
                {"text": "Text", "voice": "Voice"},
            ),
        ],
    ),
    (
        "npm",
        "npm registry",
        [],
        [
            tool(
                "npm__package_info",
                "Gets a JavaScript package's versions, license and dependencies from the"
                " npm registry.",
                {"package": "Package name"},
            ),
            tool(
                "npm__search_packages",
                "Searches the npm registry for packages.",
                {"query": "Query"},
            ),
        ],
    ),
    (
        "pypi",
        "PyPI",
        [],
        [
            tool(
                "pypi__package_info",
                "Gets a Python package's latest version, summary and requirements from PyPI.",
                {"package": "Package name"},
            ),
            tool(
                "pypi__package_releases",
                "Lists every released version of a Python package.",
                {"package": "Package name"},
            ),
        ],
    ),
    (
        "sentry",
        "Sentry",
        [],
        [
            tool(
                "sentry__list_issues",
                "Lists a project's unresolved errors, most frequent first.",
                {"project": "Project", "query": "Filter"},
            ),
            tool(
                "sentry__get_issue_events",
                "Returns the stack traces and context of an error's latest events.",
                {"issue_id": "Issue"},
            ),
            tool(
                "sentry__resolve_issue",
                "Marks an error as resolved in Sentry.",
                {"issue_id": "Issue"},
            ),
        ],
    ),
    (
        "aws",
        "AWS",
        [
            (
                "ec2_instance",
                "EC2 instances",
                {"instance_type": "Instance type", "image_id": "AMI", "region": "Region"},
            ),
            (
                "lambda_function",
                "Lambda functions",
                {"function_name": "Function", "runtime": "Runtime", "handler": "Handler"},
            ),
        ],
        [
            tool(
                "aws__invoke_lambda",
                "Invokes a Lambda function with a JSON payload and returns its response.",
                {"function_name": "Function", "payload": "JSON payload"},
            ),
            tool(
                "aws__get_cost_and_usage",
                "Reports the account's spending per service over a period.",
                {"start": "From", "end": "Until", "granularity": "DAILY or MONTHLY"},
            ),
            tool(
                "aws__cloudwatch_logs",
                "Fetches log events from a CloudWatch log group.",
                {"log_group": "Log group", "filter_pattern": "Filter", "start_time": "From"},
            ),
        ],
    ),
    (
        "redis",
        "Redis",
        [],
        [
            tool("redis__get", "Gets the value stored at a key.", {"key": "Key"}),
            tool(
                "redis__set",
                "Stores a value at a key, with an optional expiry.",
                {"key": "Key", "value": "Value", "expire_seconds": "TTL"},
            ),
            tool("redis__delete", "Deletes keys.", {"keys": "Keys"}),
            tool("redis__list_keys", "Lists keys matching a pattern.", {"pattern": "Glob pattern"}),
        ],
    ),
    (
        "mongo",
        "MongoDB",
        [],
        [
            tool(
                "mongo__find",
                "Finds documents in a collection matching a filter.",
                {
                    "collection": "Collection",
                    "filter": "Filter document",
                    "limit": "Most documents",
                },
            ),
            tool(
                "mongo__insert_many",
                "Inserts documents into a collection.",
                {"collection": "Collection", "documents": "Documents"},
            ),
            tool(
                "mongo__aggregate",
                "Runs an aggregation pipeline on a collection.",
                {"collection": "Collection", "pipeline": "Stages"},
            ),
            tool(
                "mongo__list_collections",
                "Lists the collections of a database.",
                {"database": "Database"},
            ),
        ],
    ),
    (
        "shopify",
        "Shopify",
        [
            ("product", "products", {"title": "Title", "price": "Price", "inventory": "Stock"}),
            ("order", "orders", {"customer_email": "Customer", "line_items": "Items"}),
        ],
        [
            tool(
                "shopify__fulfill_order",
                "Marks an order's items as shipped with a tracking number.",
                {"order_id": "Order", "tracking_number": "Tracking number"},
            ),
        ],
    ),
    (
        "airtable",
        "Airtable",
        [
            ("record", "records", {"base_id": "Base", "table": "Table", "fields": "Field values"}),
        ],
        [],
    ),
    (
        "dropbox",
        "Dropbox",
        [],
        [
            tool(
                "dropbox__upload",
                "Uploads a file to Dropbox.",
                {"local_path": "Local file", "dropbox_path": "Destination"},
            ),
            tool(
                "dropbox__download",
                "Downloads a file from Dropbox.",
                {"dropbox_path": "File", "local_path": "Where to save"},
            ),
            tool(
                "dropbox__share_link",
                "Creates a shared link to a Dropbox file or folder.",
                {"dropbox_path": "Path"},
            ),
        ],
    ),
    (
        "gdrive",
        "Google Drive",
        [],
        [
            tool(
                "gdrive__search",
                "Searches Google Drive for documents, sheets and slides by name or content.",
                {"query": "Query"},
            ),
            tool(
                "gdrive__read_file",
                "Reads a Google Drive document, exported as text.",
                {"file_id": "File"},
            ),
            tool(
                "gdrive__share_file",
                "Shares a Drive file with someone by email, as viewer or editor.",
                {"file_id": "File", "email": "Email", "role": "reader or writer"},
            ),
        ],
    ),
    (
        "sheets",
        "Google Sheets",
        [],
        [
            tool(
                "sheets__read_range",
                "Reads the cell values of a range in a spreadsheet.",
                {"spreadsheet_id": "Spreadsheet", "range": "A1 range"},
            ),
            tool(
                "sheets__write_range",
                "Writes values into a range of cells.",
                {"spreadsheet_id": "Spreadsheet", "range": "A1 range", "values": "Rows"},
            ),
            tool(
                "sheets__append_rows",
                "Appends rows at the end of a sheet.",
                {"spreadsheet_id": "Spreadsheet", "sheet": "Sheet", "values": "Rows"},
            ),
        ],
    ),
    (
        "calc",
        "Math",
        [],
        [
            tool(
                "calc__evaluate",
                "Evaluates an arithmetic expression exactly.",
                {"expression": "Expression"},
            ),
            tool(
                "calc__unit_convert",
                "Converts a quantity between units, such as miles to kilometers.",
                {"value": "Quantity", "from_unit": "From", "to_unit": "To"},
            ),
            tool(
                "calc__statistics",
                "Computes mean, median, standard deviation and percentiles of numbers.",
                {"numbers": "Numbers"},
            ),
        ],
    ),
    (
        "browser",
        "Playwright",
        [],
        [
            tool("browser__open_tab", "Opens a new browser tab.", {"url": "URL"}),
            tool("browser__get_page_text", "Returns the visible text of the current page.", {}),
            tool("browser__pdf", "Saves the current page as a PDF.", {"path": "Output file"}),
            tool(
                "browser__wait_for",
                "Waits until an element appears or some text is shown.",
                {"selector": "Selector", "text": "Text"},
            ),
        ],
    ),
    (
        "sentinel",
        "Security scanner",
        [],
        [
            tool(
                "sentinel__scan_dependencies",
                "Checks a project's dependencies for known vulnerabilities (CVEs).",
                {"path": "Project root"},
            ),
            tool(
                "sentinel__scan_secrets",
                "Looks for leaked API keys and passwords in a repository.",
                {"path": "Repository"},
            ),
        ],
    ),
    (
        "ci",
        "GitHub Actions",
        [],
        [
            tool(
                "ci__list_workflow_runs",
                "Lists the recent workflow runs of a repository with their status.",
                {"owner": "Owner", "repo": "Repository", "branch": "Branch"},
            ),
            tool(
                "ci__rerun_failed_jobs",
                "Re-runs the failed jobs of a workflow run.",
                {"owner": "Owner", "repo": "Repository", "run_id": "Run"},
            ),
            tool(
                "ci__download_artifact",
                "Downloads an artifact a workflow run uploaded.",
                {"owner": "Owner", "repo": "Repository", "artifact_id": "Artifact"},
            ),
        ],
    ),
    (
        "salesforce",
        "Salesforce",
        [
            ("lead", "leads", {"company": "Company", "last_name": "Last name", "email": "Email"}),
            (
                "opportunity",
                "opportunities",
                {
                    "account_id": "Account",
                    "stage": "Stage",
                    "close_date": "Close date",
                    "amount": "Amount",
                },
            ),
        ],
        [
            tool(
                "salesforce__soql_query",
                "Runs a SOQL query against CRM objects.",
                {"soql": "SOQL query"},
            ),
        ],
    ),
    (
        "asana",
        "Asana",
        [
            (
                "task",
                "tasks",
                {
                    "workspace": "Workspace",
                    "name": "Name",
                    "assignee": "Assignee",
                    "due_on": "Due date",
                },
            ),
        ],
        [
            tool(
                "asana__add_task_comment",
                "Posts a comment on an Asana task.",
                {"task_id": "Task", "text": "Comment"},
            ),
        ],
    ),
    (
        "zoom",
        "Zoom",
        [
            (
                "meeting",
                "meetings",
                {"topic": "Topic", "start_time": "Start time", "duration": "Minutes"},
            ),
        ],
        [
            tool(
                "zoom__list_recordings",
                "Lists the cloud recordings of past video meetings.",
                {"from_date": "From", "to_date": "To"},
            ),
        ],
    ),
    (
        "mailchimp",
        "Mailchimp",
        [
            (
                "campaign",
                "campaigns",
                {"list_id": "Audience", "subject_line": "Subject", "from_name": "Sender name"},
            ),
        ],
        [
            tool(
                "mailchimp__add_subscriber",
                "Subscribes an email address to a newsletter audience.",
                {"list_id": "Audience", "email": "Email", "merge_fields": "Name and other fields"},
            ),
            tool(
                "mailchimp__send_campaign",
                "Sends a newsletter campaign now.",
                {"campaign_id": "Campaign"},
            ),
        ],
    ),
    (
        "home",
        "Home Assistant",
        [],
        [
            tool(
                "home__turn_on_light",
                "Turns a light on, with an optional brightness and color.",
                {"entity_id": "Light", "brightness": "0 to 255", "color": "Color name"},
            ),
            tool(
                "home__turn_off",
                "Turns off a light, switch or other device.",
                {"entity_id": "Device"},
            ),
            tool(
                "home__set_thermostat",
                "Sets the target temperature of a thermostat.",
                {"entity_id": "Thermostat", "temperature": "Degrees"},
            ),
            tool(
                "home__get_state",
                "Reads the current state of a sensor or device.",
                {"entity_id": "Entity"},
            ),
            tool("home__lock_door", "Locks a smart lock.", {"entity_id": "Lock"}),
        ],
    ),
    (
        "reddit",
        "Reddit",
        [],
        [
            tool(
                "reddit__search_posts",
                "Searches posts in a subreddit or across the site.",
                {"query": "Query", "subreddit": "Subreddit", "sort": "relevance, hot or new"},
            ),
            tool("reddit__get_comments", "Gets the comment thread of a post.", {"post_id": "Post"}),
            tool(
                "reddit__submit_post",
                "Submits a new text or link post to a subreddit.",
                {"subreddit": "Subreddit", "title": "Title", "text": "Body"},
            ),
        ],
    ),
    (
        "x",
        "X",
        [],
        [
            tool(
                "x__post_tweet",
                "Publishes a post on X (Twitter).",
                {"text": "Text", "reply_to": "Post to reply to"},
            ),
            tool(
                "x__search_recent",
                "Searches posts on X from the last seven days.",
                {"query": "Query", "limit": "Most posts"},
            ),
        ],
    ),
    (
        "telegram",
        "Telegram",
        [],
        [
            tool(
                "telegram__send_message",
                "Sends a message to a Telegram chat through a bot.",
                {"chat_id": "Chat", "text": "Text"},
            ),
            tool(
                "telegram__get_updates",
                "Gets new messages the Telegram bot received.",
                {"offset": "First update id"},
            ),
        ],
    ),
    (
        "outlook",
        "Outlook",
        [],
        [
            tool(
                "outlook__send_mail",
                "Sends an email from a Microsoft 365 mailbox.",
                {"to": "Recipients", "subject": "Subject", "body": "Body"},
            ),
            tool(
                "outlook__list_inbox",
                "Lists the newest messages in the Outlook inbox.",
                {"limit": "Most messages", "unread_only": "Unread only"},
            ),
            tool(
                "outlook__create_event",
                "Adds an event to the Outlook calendar.",
                {"subject": "Title", "start": "Start", "end": "End"},
            ),
        ],
    ),
    (
        "teams",
        "Microsoft Teams",
        [],
        [
            tool(
                "teams__post_message",
                "Posts a message in a Teams channel.",
                {"team_id": "Team", "channel_id": "Channel", "content": "Text"},
            ),
            tool(
                "teams__list_chats", "Lists the user's recent Teams chats.", {"limit": "Most chats"}
            ),
        ],
    ),
    (
        "contacts",
        "Address book",
        [
            ("contact", "contacts", {"name": "Name", "phone": "Phone", "email": "Email"}),
        ],
        [],
    ),
    (
        "travel",
        "Travel",
        [],
        [
            tool(
                "travel__search_flights",
                "Searches flights between two airports on a date.",
                {"origin": "From airport", "destination": "To airport", "date": "Departure date"},
            ),
            tool(
                "travel__search_hotels",
                "Finds hotels in a city for given dates and guests.",
                {
                    "city": "City",
                    "check_in": "Check-in",
                    "check_out": "Check-out",
                    "guests": "Guests",
                },
            ),
            tool(
                "travel__book_flight",
                "Books a flight offer for passengers.",
                {"offer_id": "Offer", "passengers": "Passengers"},
            ),
        ],
    ),
    (
        "sql",
        "Warehouse",
        [],
        [
            tool(
                "sql__run_query",
                "Runs a SQL query on the data warehouse (BigQuery) and returns rows.",
                {"sql": "SQL", "limit": "Most rows"},
            ),
            tool(
                "sql__list_datasets",
                "Lists the datasets and tables of the warehouse.",
                {"project": "Project"},
            ),
            tool(
                "sql__table_schema",
                "Returns the columns and types of a warehouse table.",
                {"table": "Table"},
            ),
        ],
    ),
]

# Phrasings per operation, picked by a fixed rule (the service's position), so services
# do not read alike. {thing} and {things} are the kind of thing; {product} the service.
PHRASES = {
    "list": [
        "Lists the {things} in {product}.",
        "Returns {product} {things}, newest first, with paging.",
        "Gets all {things} you can see in {product}.",
    ],
    "get": [
        "Gets one {thing} from {product} by its id.",
        "Returns the details of a {product} {thing}.",
        "Fetches a single {thing} with all its fields from {product}.",
    ],
    "create": [
        "Creates a new {thing} in {product}.",
        "Adds a {thing} to {product}.",
        "Makes a {product} {thing} from the given fields.",
    ],
    "update": [
        "Updates fields of an existing {product} {thing}.",
        "Changes a {thing} in {product}.",
        "Edits a {product} {thing}; fields left out stay as they are.",
    ],
    "delete": [
        "Deletes a {thing} from {product}.",
        "Removes a {product} {thing} permanently.",
        "Deletes a {product} {thing}; this cannot be undone.",
    ],
}


def generated() -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = []
    for position, (prefix, product, things, extra) in enumerate(SERVICES):
        for thing, things_, params in things:
            for op in ("list", "get", "create", "update", "delete"):
                phrase = PHRASES[op][position % 3]
                description = phrase.format(
                    thing=thing.replace("_", " "), things=things_, product=product
                )
                if op == "list":
                    name, op_params = (
                        f"{prefix}__list_{things_.lower().replace(' ', '_')}",
                        {"limit": "Most results", "page": "Page"},
                    )
                elif op == "get":
                    name, op_params = f"{prefix}__get_{thing}", {f"{thing}_id": "Id"}
                elif op == "create":
                    name, op_params = f"{prefix}__create_{thing}", params
                elif op == "update":
                    name, op_params = f"{prefix}__update_{thing}", {f"{thing}_id": "Id", **params}
                else:
                    name, op_params = f"{prefix}__delete_{thing}", {f"{thing}_id": "Id"}
                tools.append(tool(name, description, op_params))
        tools.extend(extra)
    return tools


def build() -> list[dict[str, Any]]:
    captured = json.loads((HERE / "captured.json").read_text())
    tools: list[dict[str, Any]] = list(captured.pop("toolplug"))
    for server, server_tools in captured.items():
        tools.extend({**t, "name": f"{server}__{t['name']}"} for t in server_tools)
    for server, server_tools in REFERENCE.items():
        tools.extend({**t, "name": f"{server}__{t['name']}"} for t in server_tools)
    tools.extend(generated())
    names = [t["name"] for t in tools]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise SystemExit(f"duplicate tool names: {duplicates}")
    if len(tools) != TOTAL:
        raise SystemExit(f"{len(tools)} tools, not {TOTAL}: add or remove services")
    return tools


def capture() -> None:
    """Rewrite captured.json with the tools the real servers list now."""
    import asyncio

    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def listed(command: str, *args: str) -> list[dict[str, Any]]:
        server = StdioServerParameters(command=command, args=list(args))
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.list_tools()
        dumped = [t.model_dump(by_alias=True) for t in result.tools]
        return [
            {
                "name": t["name"],
                "description": t["description"] or "",
                "inputSchema": t["inputSchema"],
            }
            for t in dumped
        ]

    root = HERE.parents[3]
    servers = root / "plugins" / "mcp" / "tests" / "servers"
    bin_dir = Path(sys.executable).parent
    out = subprocess.run(
        [str(bin_dir / "toolplug"), "tools", "--format", "mcp"],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
    ).stdout
    # file_editor's description names the workspace; a neutral one keeps the data stable.
    builtins = json.loads(out.replace(str(root), "/home/user/project"))
    captured = {
        "toolplug": [{k: t[k] for k in ("name", "description", "inputSchema")} for t in builtins],
        "time": asyncio.run(listed(str(bin_dir / "mcp-server-time"))),
        "demo": asyncio.run(listed(sys.executable, str(servers / "demo_server.py"))),
        "library": asyncio.run(listed(sys.executable, str(servers / "library_server.py"))),
    }
    (HERE / "captured.json").write_text(json.dumps(captured, indent=1))


if __name__ == "__main__":
    if "--capture" in sys.argv:
        capture()
    tools = build()
    (HERE / "tools.json").write_text(json.dumps(tools, indent=1) + "\n")
    print(f"wrote {len(tools)} tools to {HERE / 'tools.json'}")
