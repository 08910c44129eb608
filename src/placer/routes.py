"""The route table: path -> method -> (handler, first microversion).

Handlers live in placer.handlers.<module>; see DESIGN.md for the layering.
"""

from placer.http.routing import Method as M

ROUTES = {
    "/": {"GET": M("root:home")},
    "/resource_classes": {
        "GET": M("resource_classes:list_classes", (1, 2)),
        "POST": M("resource_classes:create_class", (1, 2)),
    },
    "/resource_classes/{name}": {
        "GET": M("resource_classes:show_class", (1, 2)),
        "PUT": M("resource_classes:update_class", (1, 2)),
        "DELETE": M("resource_classes:delete_class", (1, 2)),
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
        "GET": M("aggregates:list_aggregates", (1, 1)),
        "PUT": M("aggregates:set_aggregates", (1, 1)),
    },
    "/resource_providers/{uuid}/traits": {
        "GET": M("traits:list_provider_traits", (1, 6)),
        "PUT": M("traits:set_provider_traits", (1, 6)),
        "DELETE": M("traits:delete_provider_traits", (1, 6)),
    },
    "/resource_providers/{uuid}/allocations": {
        "GET": M("allocations:list_for_provider"),
    },
    "/allocations": {
        "POST": M("allocations:set_many", (1, 13)),
    },
    "/allocations/{consumer_uuid}": {
        "GET": M("allocations:list_for_consumer"),
        "PUT": M("allocations:set_for_consumer"),
        "DELETE": M("allocations:delete_for_consumer"),
    },
    "/allocation_candidates": {
        "GET": M("allocation_candidates:list_candidates", (1, 10)),
    },
    "/usages": {
        "GET": M("usages:total_usages", (1, 9)),
    },
    "/reshaper": {
        "POST": M("reshaper:reshape", (1, 30)),
    },
    "/traits": {
        "GET": M("traits:list_traits", (1, 6)),
    },
    "/traits/{name}": {
        "GET": M("traits:show_trait", (1, 6)),
        "PUT": M("traits:create_trait", (1, 6)),
        "DELETE": M("traits:delete_trait", (1, 6)),
    },
}
