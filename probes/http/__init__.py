"""The HTTP client and OpenRouter's wire format: one pinned request (client, exchange, transport),
the stream it reads (sse, stream), the rules of the wire (wire), the records it hands on (records)
and the discovery of a model's endpoints (discovery). No pytest, no round."""
