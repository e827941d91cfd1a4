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
runtime=''
if command -v docker >/dev/null 2>&1; then
  runtime=docker
  systemctl start docker || log "docker did not start"
elif command -v nerdctl >/dev/null 2>&1; then
  runtime=nerdctl
  systemctl start containerd || log "containerd did not start"
else
  log "no docker or nerdctl on the image: the container workload does not start"
fi
if [ -n "$runtime" ]; then
  aws ecr get-login-password --region us-east-1 \
    | "$runtime" login --username AWS --password-stdin 123456789012.dkr.ecr.us-east-1.amazonaws.com \
    || log "could not log in to 123456789012.dkr.ecr.us-east-1.amazonaws.com: the image cannot be pulled"
  "$runtime" run -d --name gpufleet-workload --restart always --gpus all -e GPUFLEET_QUEUE_NAME=jobs-0a1b2c3 -e AWS_REGION=us-east-1 -e EPOCHS=3 \
    123456789012.dkr.ecr.us-east-1.amazonaws.com/trainer:1.4 python train.py --out 's3://b/it'"'"'s here' \
    || log "the container workload did not start"
fi
