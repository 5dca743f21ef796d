"""Test doubles for the LLM layer: a scripted LiteLLM provider and a fake OpenAI server."""
