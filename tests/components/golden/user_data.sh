#!/bin/bash
# No set -e: a step that fails is logged and the boot goes on.
set -uo pipefail
log() { echo "gpufleet-boot: $*" >&2; }
if [ ! -x /opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl ]; then
  if command -v dnf >/dev/null 2>&1; then
    dnf install -y --setopt=skip_if_unavailable=True amazon-cloudwatch-agent || log "dnf could not install amazon-cloudwatch-agent"
  elif command -v yum >/dev/null 2>&1; then
    yum install -y --setopt=skip_if_unavailable=True amazon-cloudwatch-agent || log "yum could not install amazon-cloudwatch-agent"
  else
    log "no dnf or yum to install amazon-cloudwatch-agent: use an image that ships it"
  fi
fi
mkdir -p /opt/aws/amazon-cloudwatch-agent/etc
cat > /opt/aws/amazon-cloudwatch-agent/etc/amazon-cloudwatch-agent.json <<'AGENT_CONFIG'
{
  "agent": {
    "metrics_collection_interval": 60
  },
  "logs": {
    "logs_collected": {
      "files": {
        "collect_list": [
          {
            "file_path": "/var/log/cloud-init-output.log",
            "log_group_name": "/gpufleet/gpufleet-dev/agent",
            "log_stream_name": "{instance_id}"
          }
        ]
      }
    }
  },
  "metrics": {
    "aggregation_dimensions": [
      [
        "AutoScalingGroupName",
        "Stack"
      ]
    ],
    "append_dimensions": {
      "AutoScalingGroupName": "${aws:AutoScalingGroupName}"
    },
    "metrics_collected": {
      "nvidia_gpu": {
        "append_dimensions": {
          "Stack": "gpufleet/test"
        },
        "measurement": [
          "utilization_gpu",
          "memory_used",
          "memory_total"
        ]
      }
    },
    "namespace": "gpufleet/gpufleet/test"
  }
}
AGENT_CONFIG
if [ -x /opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl ]; then
  /opt/aws/amazon-cloudwatch-agent/bin/amazon-cloudwatch-agent-ctl -a fetch-config -m ec2 -s -c file:/opt/aws/amazon-cloudwatch-agent/etc/amazon-cloudwatch-agent.json \
    || log "the CloudWatch agent did not start: no GPU metric, the GPU alarms stay silent"
else
  log "no CloudWatch agent: no GPU metric, the GPU alarms stay silent"
fi
