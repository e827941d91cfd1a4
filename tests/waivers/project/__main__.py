"""Two S3 buckets without a customer-managed key (GF-STOR-001): `legacy-logs` is waived in the policy
config the tests write, `scratch` by a tag on the bucket itself."""

import pulumi_aws as aws

aws.s3.Bucket("legacy-logs")
aws.s3.Bucket(
    "scratch",
    tags={"gpufleet:waive:GF-STOR-001": "scratch data, rebuilt nightly; owner=ml-team; expires=2027-01-31"},
)
