"""The per-request security context (who is asking), built by the auth layer."""

from oslo_context import context as oslo_context


class RequestContext(oslo_context.RequestContext):
    """oslo.context's request context; policy checks read its credentials."""

    def can(self, action: str, target: dict | None = None) -> None:
        """Raise ``exceptions.Forbidden`` unless policy allows ``action``."""
        from placer import policy  # policy imports config; keep import lazy

        policy.authorize(self, action, target or {"project_id": self.project_id,
                                                  "user_id": self.user_id})
