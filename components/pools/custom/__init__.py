"""Each cloud's side of the exporter's custom-metric burst gate
(:mod:`gpufleet.components.pools.burst_custom`), one module per cloud that has one
(``custom/<cloud>.py``: Alibaba's PutCustomMetric): the API's action, namespace and datapoint shape.
Tencent Cloud has none (its alarm policies cannot watch a published metric)."""
