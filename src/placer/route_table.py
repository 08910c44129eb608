"""The route table: path -> method -> (handler, first microversion).

Handlers live in placer.handlers.<module>: each parses the request, checks
policy, calls the core (db/, candidates/) in one transaction and renders the
answer (the README's "Layout" section lists the layers).
"""

from placer.http.routing import Method as M
from placer.microversions import (
    ALLOCATION_CANDIDATES,
    POST_ALLOCATIONS,
    PROVIDER_AGGREGATES,
    RESHAPER,
    RESOURCE_CLASSES,
    TOTAL_USAGES,
    TRAITS,
)

ROUTES = {
    "/": {"GET": M("root:home")},
    "/openapi.json": {"GET": M("openapi:document")},  # not the reference's: README
    "/resource_classes": {
        "GET": M("resource_classes:list_classes", RESOURCE_CLASSES),
        "POST": M("resource_classes:create_class", RESOURCE_CLASSES),
    },
    "/resource_classes/{name}": {
        "GET": M("resource_classes:show_class", RESOURCE_CLASSES),
        "PUT": M("resource_classes:update_class", RESOURCE_CLASSES),
        "DELETE": M("resource_classes:delete_class", RESOURCE_CLASSES),
    },
    "/resource_providers": {
        "GET": M("resource_providers:list_providers"),
        "POST": M("resource_providers:create_provider"),
    },
    "/resource_providers/{uuid}": {
        "GET": M("resource_providers:show_provider"),
        "DELETE": M("resource_providers:delete_provider"),
        "PUT": M("resource_providers:update_provider"),
    },
    "/resource_providers/{uuid}/inventories": {
        "GET": M("inventories:list_inventories"),
        "POST": M("inventories:create_inventory"),
        "PUT": M("inventories:replace_inventories"),
        "DELETE": M("inventories:delete_inventories"),  # 405 before 1.5, in the handler
    },
    "/resource_providers/{uuid}/inventories/{resource_class}": {
        "GET": M("inventories:show_inventory"),
        "PUT": M("inventories:update_inventory"),
        "DELETE": M("inventories:delete_inventory"),
    },
    "/resource_providers/{uuid}/usages": {
        "GET": M("usages:provider_usages"),
    },
    "/resource_providers/{uuid}/aggregates": {
        "GET": M("aggregates:list_aggregates", PROVIDER_AGGREGATES),
        "PUT": M("aggregates:set_aggregates", PROVIDER_AGGREGATES),
    },
    "/resource_providers/{uuid}/traits": {
        "GET": M("traits:list_provider_traits", TRAITS),
        "PUT": M("traits:set_provider_traits", TRAITS),
        "DELETE": M("traits:delete_provider_traits", TRAITS),
    },
    "/resource_providers/{uuid}/allocations": {
        "GET": M("allocations:list_for_provider"),
    },
    "/allocations": {
        "POST": M("allocations:set_many", POST_ALLOCATIONS),
    },
    "/allocations/{consumer_uuid}": {
        "GET": M("allocations:list_for_consumer"),
        "PUT": M("allocations:set_for_consumer"),
        "DELETE": M("allocations:delete_for_consumer"),
    },
    "/allocation_candidates": {
        "GET": M("allocation_candidates:list_candidates", ALLOCATION_CANDIDATES),
    },
    "/allocation_candidates/explain": {  # not the reference's: README
        "GET": M("explain:explain_candidates", ALLOCATION_CANDIDATES),
    },
    "/usages": {
        "GET": M("usages:total_usages", TOTAL_USAGES),
    },
    "/reshaper": {
        "POST": M("reshaper:reshape", RESHAPER),
    },
    "/traits": {
        "GET": M("traits:list_traits", TRAITS),
    },
    "/traits/{name}": {
        "GET": M("traits:show_trait", TRAITS),
        "PUT": M("traits:create_trait", TRAITS),
        "DELETE": M("traits:delete_trait", TRAITS),
    },
}
