"""The browser side of solve2048: the page ``solve2048 serve`` serves and its JSON API.

``api`` checks request bodies, ``app`` is the Starlette application, and
``static/`` holds the page: plain JavaScript with no build step and nothing
loaded from elsewhere, so it works offline.
"""
